package main

import (
	"context"
	"os"
	"strconv"
	"time"
)

// spin is how long each call busies its CPU before it answers
// (BENCH_SPIN, a Go duration; none by default): the harness's control
// for a fixed cost added to every call (server mcpgen-spin).
var spin, _ = time.ParseDuration(os.Getenv("BENCH_SPIN"))

// Status is the state of an order.
type Status string

const (
	Open      Status = "open"
	Shipped   Status = "shipped"
	Cancelled Status = "cancelled"
)

// FindOrdersInput selects the orders of one customer.
type FindOrdersInput struct {
	// Customer id, such as C42.
	Customer string `json:"customer" mcpgen:"pattern=^C[0-9]+$"`
	// Only orders in this state.
	Status Status `json:"status,omitempty"`
	// How many orders at most.
	Limit int `json:"limit" mcpgen:"default=10,min=1,max=50"`
}

// Order is one order.
type Order struct {
	ID     string `json:"id"`
	Status Status `json:"status"`
	Total  int    `json:"total"`
}

// FindOrdersOutput is what find_orders returns.
type FindOrdersOutput struct {
	Customer string  `json:"customer"`
	Limit    int     `json:"limit"`
	Orders   []Order `json:"orders"`
}

// FindOrders lists the orders of one customer, newest first.
//
//mcpgen:tool readonly title="Find orders"
func FindOrders(ctx context.Context, in FindOrdersInput) (FindOrdersOutput, error) {
	if spin > 0 {
		for t := time.Now(); time.Since(t) < spin; {
		}
	}
	st := in.Status
	if st == "" {
		st = Open
	}
	out := FindOrdersOutput{Customer: in.Customer, Limit: in.Limit, Orders: make([]Order, 0, 3)}
	for i := range min(in.Limit, 3) {
		out.Orders = append(out.Orders, Order{ID: in.Customer + "-" + strconv.Itoa(i+1), Status: st, Total: 100 * (i + 1)})
	}
	return out, nil
}

// Summary is a short text about the order book.
//
//mcpgen:resource uri=orders://summary mime=text/plain
func Summary(ctx context.Context) (string, error) {
	return findSummary, nil
}

const findSummary = "3 open orders, 12 shipped this week, 1 cancelled."
