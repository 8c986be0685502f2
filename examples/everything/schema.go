package main

import "fmt"

// address is a postal address; it appears in the input schema under
// $defs/address.
type address struct {
	Street string `json:"street,omitempty"`
	City   string `json:"city,omitempty"`
}

// Person is the input of json_schema_2020_12_tool.
type Person struct {
	Name    string   `json:"name,omitempty"`
	Address *address `json:"address,omitempty"`
}

// JSONSchemaTool takes an input whose schema uses JSON Schema 2020-12
// features: $schema, $defs with a $ref, and additionalProperties false.
//
//mcpgen:tool name=json_schema_2020_12_tool readonly
func JSONSchemaTool(in Person) (string, error) {
	return fmt.Sprintf("Hello, %s", in.Name), nil
}
