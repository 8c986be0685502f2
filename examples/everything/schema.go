package main

import "fmt"

// address is a postal address. Person uses it twice, so the input schema
// defines it once, under $defs/address, and refers to it with $ref.
type address struct {
	Street string `json:"street,omitempty"`
	City   string `json:"city,omitempty"`
}

// Person is the input of json_schema_2020_12_tool.
type Person struct {
	Name     string    `json:"name,omitempty"`
	Address  *address  `json:"address,omitempty"`
	Previous []address `json:"previous,omitempty"` // Earlier addresses, newest first.
}

// Takes an input whose schema uses JSON Schema 2020-12
// features: $schema, $defs with $ref, and additionalProperties false.
//
//mcpgen:tool name=json_schema_2020_12_tool readonly title="JSON Schema 2020-12 input"
func JSONSchemaTool(in Person) (string, error) {
	return fmt.Sprintf("Hello, %s", in.Name), nil
}
