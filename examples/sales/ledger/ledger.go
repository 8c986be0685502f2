// Package ledger is the sales example's dataset: two years (2024 and 2025)
// of order lines of a coffee-equipment shop in four regions, embedded from
// orders.csv, and the product catalog. It knows nothing about MCP.
package ledger

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"
)

//go:generate go run gen.go

//go:embed orders.csv
var ordersCSV []byte

// Line is one product on one order.
type Line struct {
	Date      time.Time
	Order     int
	Region    string
	SKU       string
	Units     int
	UnitPrice float64
}

// Revenue is what the line earned.
func (l Line) Revenue() float64 { return float64(l.Units) * l.UnitPrice }

// Product is one item of the catalog.
type Product struct {
	SKU       string
	Name      string
	Category  string
	ListPrice float64
}

// Catalog is every product the shop sells, by category.
var Catalog = []Product{
	{"ESP-100", "Barista Pro espresso machine", "Machines", 749},
	{"ESP-200", "Compact espresso machine", "Machines", 329},
	{"GRD-10", "Burr grinder", "Grinders", 189},
	{"GRD-20", "Hand grinder", "Grinders", 79},
	{"KTL-01", "Gooseneck kettle", "Brewing", 69},
	{"BRW-01", "Pour-over kit", "Brewing", 39},
	{"BRW-02", "French press", "Brewing", 35},
	{"BNS-01", "House blend beans, 1 kg", "Beans", 24},
	{"BNS-02", "Ethiopia single origin, 1 kg", "Beans", 32},
	{"BNS-03", "Decaf beans, 1 kg", "Beans", 26},
	{"ACC-01", "Milk pitcher", "Accessories", 18},
	{"ACC-02", "Tamper", "Accessories", 29},
}

// Regions are the shop's sales regions.
var Regions = []string{"north", "south", "east", "west"}

// Lookup returns the product with the given SKU.
func Lookup(sku string) (Product, bool) {
	for _, p := range Catalog {
		if p.SKU == sku {
			return p, true
		}
	}
	return Product{}, false
}

// First and Last are the first and last day the dataset covers.
var (
	First = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	Last  = time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)
)

// Lines returns every order line, oldest first. The CSV is parsed once.
func Lines() []Line { return lines() }

var lines = sync.OnceValue(func() []Line {
	out, err := parse(bytes.NewReader(ordersCSV))
	if err != nil {
		panic("ledger: the embedded orders.csv is broken: " + err.Error())
	}
	return out
})

func parse(r io.Reader) ([]Line, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 6
	cr.ReuseRecord = true
	if _, err := cr.Read(); err != nil { // header
		return nil, err
	}
	var out []Line
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		d, err := time.Parse(time.DateOnly, rec[0])
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		order, err1 := strconv.Atoi(rec[1])
		units, err2 := strconv.Atoi(rec[4])
		price, err3 := strconv.ParseFloat(rec[5], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("line %d: bad number in %q", line, rec)
		}
		out = append(out, Line{Date: d, Order: order, Region: rec[2], SKU: rec[3], Units: units, UnitPrice: price})
	}
}

// Filter selects order lines. Zero fields select everything.
type Filter struct {
	Region   string    // one of Regions
	SKU      string    // one product
	From, To time.Time // inclusive days
}

// Select returns the lines that pass f, oldest first.
func Select(f Filter) []Line {
	var out []Line
	for _, l := range Lines() {
		if f.Region != "" && l.Region != f.Region ||
			f.SKU != "" && l.SKU != f.SKU ||
			!f.From.IsZero() && l.Date.Before(f.From) ||
			!f.To.IsZero() && l.Date.After(f.To) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// Period is how days are grouped into a series.
type Period string

const (
	Week    Period = "week"
	Month   Period = "month"
	Quarter Period = "quarter"
)

// Bucket returns the first day of the period holding d, and its label:
// "2025-W07", "Feb 2025", "Q1 2025". Weeks start on Monday.
func Bucket(d time.Time, p Period) (time.Time, string) {
	switch p {
	case Week:
		start := d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
		y, w := start.ISOWeek()
		return start, fmt.Sprintf("%d-W%02d", y, w)
	case Quarter:
		q := (int(d.Month()) - 1) / 3
		return time.Date(d.Year(), time.Month(q*3+1), 1, 0, 0, 0, 0, time.UTC), fmt.Sprintf("Q%d %d", q+1, d.Year())
	default:
		start := time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC)
		return start, start.Format("Jan 2006")
	}
}

// Next returns the first day of the period after the one starting at start.
func Next(start time.Time, p Period) time.Time {
	switch p {
	case Week:
		return start.AddDate(0, 0, 7)
	case Quarter:
		return start.AddDate(0, 3, 0)
	default:
		return start.AddDate(0, 1, 0)
	}
}
