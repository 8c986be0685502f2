// Package findorders is the find_orders tool of the load benchmark as the
// hand-written servers use it: its types, its function, and the same input
// and output schemas mcpgen generates for it (bench/load/connector), so
// every server validates and announces exactly the same thing. It also
// holds what the servers share around it: serving HTTP at /mcp until
// SIGTERM, and the optional CPU profile.
package findorders

import (
	"context"
	"strconv"
)

// Status is the state of an order.
type Status string

const (
	Open      Status = "open"
	Shipped   Status = "shipped"
	Cancelled Status = "cancelled"
)

// Input selects the orders of one customer.
type Input struct {
	Customer string `json:"customer"`
	Status   Status `json:"status,omitempty"`
	Limit    int    `json:"limit"`
}

// Order is one order.
type Order struct {
	ID     string `json:"id"`
	Status Status `json:"status"`
	Total  int    `json:"total"`
}

// Output is what find_orders returns.
type Output struct {
	Customer string  `json:"customer"`
	Limit    int     `json:"limit"`
	Orders   []Order `json:"orders"`
}

// Name, Title and Description announce the tool.
const (
	Name        = "find_orders"
	Title       = "Find orders"
	Description = "FindOrders lists the orders of one customer, newest first."
)

// InputSchema and OutputSchema are the schemas mcpgen generates for the
// connector's FindOrdersInput and FindOrdersOutput.
const (
	InputSchema  = `{"$schema":"https://json-schema.org/draft/2020-12/schema","description":"FindOrdersInput selects the orders of one customer.","type":"object","properties":{"customer":{"description":"Customer id, such as C42.","type":"string","pattern":"^C[0-9]+$"},"status":{"description":"Only orders in this state.","type":"string","enum":["open","shipped","cancelled"]},"limit":{"description":"How many orders at most.","type":"integer","minimum":1,"maximum":50,"default":10}},"required":["customer"],"additionalProperties":false}`
	OutputSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","description":"FindOrdersOutput is what find_orders returns.","type":"object","properties":{"customer":{"type":"string"},"limit":{"type":"integer"},"orders":{"type":["array","null"],"items":{"description":"Order is one order.","type":"object","properties":{"id":{"type":"string"},"status":{"description":"Status is the state of an order.","type":"string","enum":["open","shipped","cancelled"]},"total":{"type":"integer"}},"required":["id","status","total"],"additionalProperties":false}}},"required":["customer","limit","orders"],"additionalProperties":false}`
)

// DefaultLimit is the default of Input.Limit.
const DefaultLimit = 10

// Find is the tool: the same body as the connector's FindOrders.
func Find(ctx context.Context, in Input) (Output, error) {
	st := in.Status
	if st == "" {
		st = Open
	}
	out := Output{Customer: in.Customer, Limit: in.Limit, Orders: make([]Order, 0, 3)}
	for i := range min(in.Limit, 3) {
		out.Orders = append(out.Orders, Order{ID: in.Customer + "-" + strconv.Itoa(i+1), Status: st, Total: 100 * (i + 1)})
	}
	return out, nil
}

// The resource every server serves beside the tool: a short text.
const (
	SummaryURI         = "orders://summary"
	SummaryName        = "summary"
	SummaryDescription = "Summary is a short text about the order book."
	SummaryText        = "3 open orders, 12 shipped this week, 1 cancelled."
)
