package ledger

import (
	"testing"
	"time"
)

func TestDataset(t *testing.T) {
	ls := Lines()
	if len(ls) < 4000 {
		t.Fatalf("%d lines", len(ls))
	}
	if !ls[0].Date.Equal(First) || ls[len(ls)-1].Date.After(Last) {
		t.Errorf("dates run %v to %v", ls[0].Date, ls[len(ls)-1].Date)
	}
	for _, l := range ls {
		if _, ok := Lookup(l.SKU); !ok {
			t.Fatalf("unknown SKU %q", l.SKU)
		}
	}
	got := Select(Filter{Region: "east", SKU: "ESP-100", From: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
	for _, l := range got {
		if l.Region != "east" || l.SKU != "ESP-100" || l.Date.Year() != 2025 {
			t.Fatalf("Select let through %+v", l)
		}
	}
	if len(got) == 0 {
		t.Error("Select found nothing")
	}
}

func TestBucket(t *testing.T) {
	d := time.Date(2025, 2, 13, 0, 0, 0, 0, time.UTC) // a Thursday
	for _, c := range []struct {
		p     Period
		start string
		label string
	}{{Week, "2025-02-10", "2025-W07"}, {Month, "2025-02-01", "Feb 2025"}, {Quarter, "2025-01-01", "Q1 2025"}} {
		s, l := Bucket(d, c.p)
		if s.Format(time.DateOnly) != c.start || l != c.label {
			t.Errorf("Bucket(%v) = %v %q, want %s %q", c.p, s, l, c.start, c.label)
		}
	}
}
