package main

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/mcpgen/mcpgen/examples/sales/ledger"
)

// Region selects the orders of one sales region.
type Region string

const (
	// Sums every region.
	AllRegions Region = "all"
	// North is the northern region.
	North Region = "north"
	// South is the southern region.
	South Region = "south"
	// East is the eastern region.
	East Region = "east"
	// West is the western region.
	West Region = "west"
)

// GroupBy is the length of one step of a series.
type GroupBy string

const (
	// Week groups by ISO week (Monday to Sunday).
	Week GroupBy = "week"
	// Month groups by calendar month.
	Month GroupBy = "month"
	// Quarter groups by calendar quarter.
	Quarter GroupBy = "quarter"
)

// SummarizeSalesInput selects the orders to summarize.
type SummarizeSalesInput struct {
	Region Region `json:"region,omitempty" mcpgen:"default=all"`
	// From is the first day included (YYYY-MM-DD). The data covers
	// 2024-01-01 to 2025-12-31.
	From string `json:"from,omitempty" mcpgen:"format=date,default=2025-01-01"`
	// To is the last day included (YYYY-MM-DD).
	To      string  `json:"to,omitempty" mcpgen:"format=date,default=2025-12-31"`
	GroupBy GroupBy `json:"groupBy,omitempty" mcpgen:"default=month"`
	// Top is how many of the best-selling products to list.
	Top int `json:"top,omitempty" mcpgen:"min=1,max=12,default=5"`
}

// Totals sum a set of order lines.
type Totals struct {
	// Revenue is in US dollars.
	Revenue float64 `json:"revenue"`
	// Orders counts distinct orders.
	Orders int `json:"orders"`
	Units  int `json:"units"`
	// AverageOrder is revenue per order, in US dollars.
	AverageOrder float64 `json:"averageOrder"`
}

// PeriodTotal is one step of a series.
type PeriodTotal struct {
	// Label names the period: "2025-W07", "Feb 2025" or "Q1 2025".
	Label string `json:"label"`
	// Start is the period's first day (YYYY-MM-DD).
	Start   string  `json:"start"`
	Revenue float64 `json:"revenue"`
	Orders  int     `json:"orders"`
	Units   int     `json:"units"`
}

// ProductTotal is one product's share of the sales.
type ProductTotal struct {
	SKU      string  `json:"sku"`
	Name     string  `json:"name"`
	Category string  `json:"category"`
	Revenue  float64 `json:"revenue"`
	Units    int     `json:"units"`
	Orders   int     `json:"orders"`
	// Share is the product's fraction of the revenue, 0 to 1.
	Share float64 `json:"share"`
}

// RegionTotal is one region's share of the sales.
type RegionTotal struct {
	Region  Region  `json:"region"`
	Revenue float64 `json:"revenue"`
	// Share is the region's fraction of the revenue, 0 to 1.
	Share float64 `json:"share"`
}

// SalesSummary is the answer of summarize_sales.
type SalesSummary struct {
	Region  Region  `json:"region"`
	From    string  `json:"from"`
	To      string  `json:"to"`
	GroupBy GroupBy `json:"groupBy"`
	Totals  Totals  `json:"totals"`
	// Previous are the totals of the equally long period just before From,
	// when the data covers it: the base for growth figures.
	Previous *Totals `json:"previous,omitempty"`
	// Series is the revenue of every period from From to To, empty ones
	// included.
	Series []PeriodTotal `json:"series"`
	// TopProducts are the best sellers by revenue, best first.
	TopProducts []ProductTotal `json:"topProducts"`
	// Regions split the revenue by region, largest first.
	Regions []RegionTotal `json:"regions"`
}

// Summarizes the shop's sales between two days: revenue,
// orders, units and average order value (with the period before for
// comparison), a revenue series by week, month or quarter, the top products
// and the split by region. Use drill_down for one product.
//
//mcpgen:tool readonly closedworld ui=dashboard title="Summarize sales"
func SummarizeSales(ctx context.Context, in SummarizeSalesInput) (SalesSummary, error) {
	f, err := filter(in.Region, in.From, in.To)
	if err != nil {
		return SalesSummary{}, err
	}
	lines := ledger.Select(f)
	out := SalesSummary{
		Region: regionOr(in.Region), From: day(f.From), To: day(f.To), GroupBy: groupOr(in.GroupBy),
		Totals: totals(lines),
		Series: series(lines, f.From, f.To, groupOr(in.GroupBy)),
	}
	days := int(f.To.Sub(f.From).Hours()/24) + 1
	if prevFrom := f.From.AddDate(0, 0, -days); !prevFrom.Before(ledger.First) {
		prev := totals(ledger.Select(ledger.Filter{Region: f.Region, From: prevFrom, To: f.From.AddDate(0, 0, -1)}))
		out.Previous = &prev
	}
	top := in.Top
	if top == 0 {
		top = 5
	}
	out.TopProducts = products(lines, out.Totals.Revenue)
	if len(out.TopProducts) > top {
		out.TopProducts = out.TopProducts[:top]
	}
	out.Regions = regions(lines, out.Totals.Revenue)
	return out, nil
}

// DrillDownInput names one product and the orders to look at.
type DrillDownInput struct {
	// SKU is the product, as summarize_sales or list_products return it,
	// e.g. "ESP-100".
	SKU    string `json:"sku" mcpgen:"pattern='^[A-Z]{3}-[0-9]{2,3}$'"`
	Region Region `json:"region,omitempty" mcpgen:"default=all"`
	// From is the first day included (YYYY-MM-DD).
	From string `json:"from,omitempty" mcpgen:"format=date,default=2025-01-01"`
	// To is the last day included (YYYY-MM-DD).
	To      string  `json:"to,omitempty" mcpgen:"format=date,default=2025-12-31"`
	GroupBy GroupBy `json:"groupBy,omitempty" mcpgen:"default=month"`
}

// Product is one item of the catalog.
type Product struct {
	SKU      string `json:"sku"`
	Name     string `json:"name"`
	Category string `json:"category"`
	// ListPrice is the regular price in US dollars.
	ListPrice float64 `json:"listPrice"`
}

// ProductDetail is the answer of drill_down.
type ProductDetail struct {
	Product Product `json:"product"`
	Region  Region  `json:"region"`
	From    string  `json:"from"`
	To      string  `json:"to"`
	Totals  Totals  `json:"totals"`
	// AveragePrice is the price actually paid per unit, discounts included.
	AveragePrice float64 `json:"averagePrice"`
	// Rank is the product's place by revenue among all products (1 is the
	// best seller).
	Rank int `json:"rank"`
	// Share is the product's fraction of all revenue, 0 to 1.
	Share float64 `json:"share"`
	// Series is the revenue per period; the data covers one year, so at
	// most 53 weeks.
	Series []PeriodTotal `json:"series" mcpgen:"maxItems=53"`
	// Regions split the product's revenue by region, largest first.
	Regions []RegionTotal `json:"regions" mcpgen:"maxItems=4"`
}

// Looks into one product: its revenue series, units, price
// actually paid, rank among all products and split by region.
//
//mcpgen:tool readonly closedworld title="Drill down into a product"
func DrillDown(ctx context.Context, in DrillDownInput) (ProductDetail, error) {
	p, ok := ledger.Lookup(in.SKU)
	if !ok {
		return ProductDetail{}, fmt.Errorf("no product has SKU %q: call list_products for the SKUs", in.SKU)
	}
	f, err := filter(in.Region, in.From, in.To)
	if err != nil {
		return ProductDetail{}, err
	}
	all := ledger.Select(f)
	f.SKU = p.SKU
	lines := ledger.Select(f)
	out := ProductDetail{
		Product: toProduct(p), Region: regionOr(in.Region), From: day(f.From), To: day(f.To),
		Totals: totals(lines),
		Series: series(lines, f.From, f.To, groupOr(in.GroupBy)),
	}
	if out.Totals.Units > 0 {
		out.AveragePrice = cents(out.Totals.Revenue / float64(out.Totals.Units))
	}
	allTotals := totals(all)
	for i, pt := range products(all, allTotals.Revenue) {
		if pt.SKU == p.SKU {
			out.Rank, out.Share = i+1, pt.Share
		}
	}
	out.Regions = regions(lines, out.Totals.Revenue)
	return out, nil
}

// Catalog lists the products.
type Catalog struct {
	// Products are the shop's products; the catalog is small and fixed.
	Products []Product `json:"products" mcpgen:"maxItems=100"`
}

// Lists every product the shop sells, with SKU, category and
// list price.
//
//mcpgen:tool readonly closedworld title="List products"
func ListProducts(ctx context.Context) (Catalog, error) {
	var out Catalog
	for _, p := range ledger.Catalog {
		out.Products = append(out.Products, toProduct(p))
	}
	return out, nil
}

func toProduct(p ledger.Product) Product {
	return Product{SKU: p.SKU, Name: p.Name, Category: p.Category, ListPrice: p.ListPrice}
}

func regionOr(r Region) Region {
	if r == "" {
		return AllRegions
	}
	return r
}

func groupOr(g GroupBy) GroupBy {
	if g == "" {
		return Month
	}
	return g
}

// filter checks a region and a range of days and turns them into a
// ledger.Filter.
func filter(region Region, from, to string) (ledger.Filter, error) {
	f := ledger.Filter{From: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), To: ledger.Last}
	if region != AllRegions {
		f.Region = string(region)
	}
	var err error
	if from != "" {
		if f.From, err = time.Parse(time.DateOnly, from); err != nil {
			return f, fmt.Errorf("from: %q is not a day: write YYYY-MM-DD, e.g. 2025-03-01", from)
		}
	}
	if to != "" {
		if f.To, err = time.Parse(time.DateOnly, to); err != nil {
			return f, fmt.Errorf("to: %q is not a day: write YYYY-MM-DD, e.g. 2025-03-31", to)
		}
	}
	if f.To.Before(f.From) {
		return f, fmt.Errorf("from (%s) is after to (%s): swap them", day(f.From), day(f.To))
	}
	if f.From.Before(ledger.First) || f.To.After(ledger.Last) {
		return f, fmt.Errorf("the data covers %s to %s: choose days in that range", day(ledger.First), day(ledger.Last))
	}
	return f, nil
}

func day(t time.Time) string { return t.Format(time.DateOnly) }

func cents(x float64) float64 { return math.Round(x*100) / 100 }

func totals(lines []ledger.Line) Totals {
	var t Totals
	orders := map[int]bool{}
	for _, l := range lines {
		t.Revenue += l.Revenue()
		t.Units += l.Units
		orders[l.Order] = true
	}
	t.Orders = len(orders)
	t.Revenue = cents(t.Revenue)
	if t.Orders > 0 {
		t.AverageOrder = cents(t.Revenue / float64(t.Orders))
	}
	return t
}

// series sums lines into consecutive periods from the one holding from to
// the one holding to.
func series(lines []ledger.Line, from, to time.Time, g GroupBy) []PeriodTotal {
	p := ledger.Period(g)
	var out []PeriodTotal
	index := map[time.Time]int{}
	orders := map[time.Time]map[int]bool{}
	start, _ := ledger.Bucket(from, p)
	for s := start; !s.After(to); s = ledger.Next(s, p) {
		_, label := ledger.Bucket(s, p)
		index[s] = len(out)
		orders[s] = map[int]bool{}
		out = append(out, PeriodTotal{Label: label, Start: day(s)})
	}
	for _, l := range lines {
		s, _ := ledger.Bucket(l.Date, p)
		i, ok := index[s]
		if !ok {
			continue
		}
		out[i].Revenue += l.Revenue()
		out[i].Units += l.Units
		orders[s][l.Order] = true
	}
	for i := range out {
		s, _ := time.Parse(time.DateOnly, out[i].Start)
		out[i].Orders = len(orders[s])
		out[i].Revenue = cents(out[i].Revenue)
	}
	return out
}

// products sums lines by product, best seller first.
func products(lines []ledger.Line, revenue float64) []ProductTotal {
	by := map[string]*ProductTotal{}
	orders := map[string]map[int]bool{}
	for _, l := range lines {
		pt := by[l.SKU]
		if pt == nil {
			p, _ := ledger.Lookup(l.SKU)
			pt = &ProductTotal{SKU: p.SKU, Name: p.Name, Category: p.Category}
			by[l.SKU] = pt
			orders[l.SKU] = map[int]bool{}
		}
		pt.Revenue += l.Revenue()
		pt.Units += l.Units
		orders[l.SKU][l.Order] = true
	}
	out := []ProductTotal{}
	for sku, pt := range by {
		pt.Orders = len(orders[sku])
		pt.Revenue = cents(pt.Revenue)
		if revenue > 0 {
			pt.Share = math.Round(pt.Revenue/revenue*10000) / 10000
		}
		out = append(out, *pt)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Revenue != out[j].Revenue {
			return out[i].Revenue > out[j].Revenue
		}
		return out[i].SKU < out[j].SKU
	})
	return out
}

// regions sums lines by region, largest first.
func regions(lines []ledger.Line, revenue float64) []RegionTotal {
	by := map[string]float64{}
	for _, l := range lines {
		by[l.Region] += l.Revenue()
	}
	out := []RegionTotal{}
	for _, r := range ledger.Regions {
		rt := RegionTotal{Region: Region(r), Revenue: cents(by[r])}
		if revenue > 0 {
			rt.Share = math.Round(rt.Revenue/revenue*10000) / 10000
		}
		out = append(out, rt)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Revenue > out[j].Revenue })
	return out
}
