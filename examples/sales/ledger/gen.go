//go:build ignore

// gen writes orders.csv, the example's dataset: two years of order lines of
// a coffee-equipment shop in four regions, with seasons, a trend and noise,
// drawn from a fixed seed so the file is the same on every run.
//
//	go run gen.go
package main

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"time"
)

type product struct {
	sku     string
	price   float64
	weight  float64 // relative popularity
	holiday float64 // extra demand in November and December
	maxQty  int
}

var products = []product{
	{"ESP-100", 749, 0.9, 1.6, 1},
	{"ESP-200", 329, 1.6, 1.3, 1},
	{"GRD-10", 189, 1.8, 1.1, 1},
	{"GRD-20", 79, 2.0, 0.8, 1},
	{"KTL-01", 69, 2.2, 0.9, 1},
	{"BRW-01", 39, 2.6, 0.7, 2},
	{"BRW-02", 35, 2.1, 0.6, 2},
	{"BNS-01", 24, 6.5, 0.3, 4},
	{"BNS-02", 32, 4.8, 0.4, 3},
	{"BNS-03", 26, 1.9, 0.2, 3},
	{"ACC-01", 18, 2.4, 0.5, 2},
	{"ACC-02", 29, 1.7, 0.5, 1},
}

var regions = []struct {
	name   string
	weight float64
}{{"north", 1.0}, {"south", 0.8}, {"east", 1.25}, {"west", 1.1}}

func main() {
	r := rand.New(rand.NewPCG(2025, 11))
	f, err := os.Create("orders.csv")
	if err != nil {
		panic(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "date,order,region,sku,units,unit_price")
	order := 10000
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	end := time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)
	for d := start; !d.After(end); d = d.AddDate(0, 0, 1) {
		days := d.Sub(start).Hours() / 24
		trend := 1 + days/730*0.35 // 35% growth over two years
		season := 1 + 0.18*math.Cos(2*math.Pi*(float64(d.YearDay())-15)/365)
		holiday := d.Month() == time.November || d.Month() == time.December
		if d.Month() == time.July || d.Month() == time.August {
			season *= 0.85
		}
		if d.Weekday() == time.Saturday || d.Weekday() == time.Sunday {
			season *= 1.25
		}
		for _, rg := range regions {
			mean := 0.7 * trend * season * rg.weight
			if holiday {
				mean *= 1.3
			}
			n := poisson(r, mean)
			for range n {
				order++
				lines := 1 + r.IntN(3)
				seen := map[int]bool{}
				for range lines {
					i := pick(r, holiday)
					if seen[i] {
						continue
					}
					seen[i] = true
					p := products[i]
					units := 1 + r.IntN(p.maxQty)
					price := p.price
					if holiday && p.price > 100 && r.Float64() < 0.5 {
						price = math.Round(p.price*0.9*100) / 100 // the holiday sale
					}
					fmt.Fprintf(w, "%s,%d,%s,%s,%d,%.2f\n", d.Format(time.DateOnly), order, rg.name, p.sku, units, price)
				}
			}
		}
	}
	if err := w.Flush(); err != nil {
		panic(err)
	}
	if err := f.Close(); err != nil {
		panic(err)
	}
}

func pick(r *rand.Rand, holiday bool) int {
	weights := make([]float64, len(products))
	sum := 0.0
	for i, p := range products {
		weights[i] = p.weight
		if holiday {
			weights[i] *= 1 + p.holiday
		}
		sum += weights[i]
	}
	x := r.Float64() * sum
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(products) - 1
}

func poisson(r *rand.Rand, mean float64) int {
	l, k, p := math.Exp(-mean), 0, 1.0
	for {
		p *= r.Float64()
		if p <= l {
			return k
		}
		k++
	}
}
