package argcheck

import (
	"encoding/json"
	"strings"
	"testing"
)

// formatsInput gives every format docs/directives.md lists, at the top
// level, in an array, behind a $ref and behind a nullable anyOf.
const formatsInput = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{
"date":{"type":"string","format":"date"},
"dateTime":{"type":"string","format":"date-time"},
"time":{"type":"string","format":"time"},
"duration":{"type":"string","format":"duration"},
"email":{"type":"string","format":"email"},
"idnEmail":{"type":"string","format":"idn-email"},
"hostname":{"type":"string","format":"hostname"},
"idnHostname":{"type":"string","format":"idn-hostname"},
"ipv4":{"type":"string","format":"ipv4"},
"ipv6":{"type":"string","format":"ipv6"},
"uri":{"type":"string","format":"uri"},
"uriReference":{"type":"string","format":"uri-reference"},
"iri":{"type":"string","format":"iri"},
"iriReference":{"type":"string","format":"iri-reference"},
"uriTemplate":{"type":"string","format":"uri-template"},
"uuid":{"type":"string","format":"uuid"},
"jsonPointer":{"type":"string","format":"json-pointer"},
"relativeJsonPointer":{"type":"string","format":"relative-json-pointer"},
"regex":{"type":"string","format":"regex"},
"days":{"type":"array","items":{"type":"string","format":"date"}},
"range":{"$ref":"#/$defs/Range"},
"maybe":{"anyOf":[{"$ref":"#/$defs/Range"},{"type":"null"}]}
},"additionalProperties":false,"$defs":{"Range":{"type":"object","properties":{"from":{"type":"string","format":"date"}},"additionalProperties":false}}}`

// A value that breaks its field's format is refused naming the field, the
// format and an example; good values of every format pass.
func TestCheckFormats(t *testing.T) {
	s, err := Compile([]byte(formatsInput))
	if err != nil {
		t.Fatal(err)
	}
	check := func(args map[string]any) error {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Check(b)
		return err
	}
	good := map[string]any{
		"date": "2025-01-31", "dateTime": "2025-01-31T09:30:00.5+01:00", "time": "09:30:00z", "duration": "P3DT4H",
		"email": "ann@example.com", "idnEmail": "jörg@example.com", "hostname": "api.example.com", "idnHostname": "bücher.example",
		"ipv4": "192.0.2.1", "ipv6": "2001:db8::1", "uri": "https://example.com/a?b=c#d", "uriReference": "../a?b",
		"iri": "https://example.com/ä", "iriReference": "ä/b", "uriTemplate": "https://example.com/{id}{?q}",
		"uuid": "123e4567-e89b-12d3-a456-426614174000", "jsonPointer": "/a~1b/0", "relativeJsonPointer": "1/name",
		"regex": "^[a-z]+$", "days": []string{"2025-02-28"}, "range": map[string]any{"from": "2024-02-29"}, "maybe": nil,
	}
	if err := check(good); err != nil {
		t.Fatalf("good values refused: %v", err)
	}
	for _, tc := range []struct {
		field string
		value any
		want  string
	}{
		{"date", "yesterday", `invalid arguments: "date": must be a date (format date, such as 2025-01-31), not "yesterday"`},
		{"date", "2025-02-30", `"date": must be a date`},
		{"dateTime", "2025-01-31 09:30", `"dateTime": must be a date and time with a time zone`},
		{"dateTime", "2025-01-31T09:30:00", `"dateTime": must be a date and time with a time zone`},
		{"time", "25:00:00Z", `"time": must be a time of day`},
		{"duration", "3 days", `"duration": must be an ISO 8601 duration`},
		{"duration", "PT", `"duration": must be an ISO 8601 duration`},
		{"email", "Ann <ann@example.com>", `"email": must be an email address`},
		{"email", "jörg@example.com", `"email": must be an email address`},
		{"hostname", "-bad-.example.com", `"hostname": must be a host name`},
		{"ipv4", "192.168.001.1", `"ipv4": must be an IPv4 address`},
		{"ipv6", "192.0.2.1", `"ipv6": must be an IPv6 address`},
		{"uri", "example.com/path", `"uri": must be an absolute URI`},
		{"uri", "https://example.com/a b", `"uri": must be an absolute URI`},
		{"uriTemplate", "https://example.com/{id", `"uriTemplate": must be a URI template`},
		{"uuid", "123e4567", `"uuid": must be a UUID (format uuid, such as 123e4567-e89b-12d3-a456-426614174000), not "123e4567"`},
		{"jsonPointer", "a/b", `"jsonPointer": must be a JSON pointer`},
		{"relativeJsonPointer", "/a", `"relativeJsonPointer": must be a relative JSON pointer`},
		{"regex", "([a-z]", `"regex": must be a regular expression`},
		{"days", []string{"2025-01-01", "tomorrow"}, `"days[]": must be a date`},
		{"range", map[string]any{"from": "last week"}, `"range.from": must be a date`},
		{"maybe", map[string]any{"from": "soon"}, `"maybe.from": must be a date`},
	} {
		err := check(map[string]any{tc.field: tc.value})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%v: %v\nwant %q", tc.field, tc.value, err, tc.want)
		}
	}
}
