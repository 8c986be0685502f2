package main

import (
	"context"
	"strings"
	"testing"
)

func TestSummarizeSales(t *testing.T) {
	ctx := context.Background()
	year, err := SummarizeSales(ctx, SummarizeSalesInput{Region: AllRegions, From: "2025-01-01", To: "2025-12-31", GroupBy: Month, Top: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(year.Series) != 12 || year.Series[0].Label != "Jan 2025" || year.Series[11].Label != "Dec 2025" {
		t.Errorf("monthly series: %+v", year.Series)
	}
	if year.Previous == nil || year.Previous.Revenue <= 0 {
		t.Errorf("2024 is in the data, so 2025 has a previous period: %+v", year.Previous)
	}
	if len(year.TopProducts) != 5 || year.TopProducts[0].Revenue < year.TopProducts[4].Revenue {
		t.Errorf("top products: %+v", year.TopProducts)
	}
	var sum, regions float64
	for _, p := range year.Series {
		sum += p.Revenue
	}
	for _, r := range year.Regions {
		regions += r.Revenue
	}
	if d := sum - year.Totals.Revenue; d > 0.05 || d < -0.05 {
		t.Errorf("the series sums to %.2f, the total is %.2f", sum, year.Totals.Revenue)
	}
	if d := regions - year.Totals.Revenue; d > 0.05 || d < -0.05 {
		t.Errorf("the regions sum to %.2f, the total is %.2f", regions, year.Totals.Revenue)
	}

	east, err := SummarizeSales(ctx, SummarizeSalesInput{Region: East, From: "2025-01-01", To: "2025-12-31", GroupBy: Quarter, Top: 3})
	if err != nil {
		t.Fatal(err)
	}
	if east.Totals.Revenue >= year.Totals.Revenue || len(east.Series) != 4 || east.Series[0].Label != "Q1 2025" || len(east.TopProducts) != 3 {
		t.Errorf("east by quarter: %+v", east)
	}
	first, err := SummarizeSales(ctx, SummarizeSalesInput{From: "2024-01-01", To: "2024-03-31", GroupBy: Week, Top: 1})
	if err != nil {
		t.Fatal(err)
	}
	if first.Previous != nil {
		t.Errorf("no data before 2024, yet previous = %+v", first.Previous)
	}

	for _, c := range []struct {
		in   SummarizeSalesInput
		want string
	}{
		{SummarizeSalesInput{From: "2025-13-01"}, "write YYYY-MM-DD"},
		{SummarizeSalesInput{From: "2025-06-01", To: "2025-05-01"}, "swap them"},
		{SummarizeSalesInput{From: "2023-01-01", To: "2023-12-31"}, "the data covers 2024-01-01 to 2025-12-31"},
	} {
		if _, err := SummarizeSales(ctx, c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SummarizeSales(%+v) = %v, want an error saying %q", c.in, err, c.want)
		}
	}
}

func TestDrillDown(t *testing.T) {
	ctx := context.Background()
	d, err := DrillDown(ctx, DrillDownInput{SKU: "BNS-01", Region: AllRegions, From: "2025-01-01", To: "2025-12-31", GroupBy: Month})
	if err != nil {
		t.Fatal(err)
	}
	if d.Product.Name != "House blend beans, 1 kg" || d.Rank < 1 || d.Share <= 0 || len(d.Series) != 12 || len(d.Regions) != 4 {
		t.Errorf("drill_down BNS-01: %+v", d)
	}
	if d.AveragePrice != 24 {
		t.Errorf("beans are never discounted, average price %v", d.AveragePrice)
	}
	if _, err := DrillDown(ctx, DrillDownInput{SKU: "XXX-99"}); err == nil || !strings.Contains(err.Error(), "list_products") {
		t.Errorf("unknown SKU: %v", err)
	}
}
