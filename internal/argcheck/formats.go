package argcheck

import (
	"fmt"
	"maps"
	"net/mail"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
)

// The JSON Schema validator the runtime uses treats "format" as an
// annotation only; the formats a tag may give (docs/directives.md) are
// enforced here, after the other keywords, so a handler never sees a
// "date" of "yesterday".

// formatRule is how one format is checked, what the error says it must be,
// and an example of a good value.
type formatRule struct {
	valid   func(string) bool
	what    string
	example string
}

var formats = map[string]formatRule{
	"date":                  {validDate, "a date", "2025-01-31"},
	"date-time":             {validDateTime, "a date and time with a time zone", "2025-01-31T09:30:00Z"},
	"time":                  {validTime, "a time of day with a time zone", "09:30:00Z"},
	"duration":              {validDuration, "an ISO 8601 duration", "P3DT4H"},
	"email":                 {validEmail(false), "an email address", "name@example.com"},
	"idn-email":             {validEmail(true), "an email address", "name@example.com"},
	"hostname":              {validHostname(false), "a host name", "api.example.com"},
	"idn-hostname":          {validHostname(true), "a host name", "api.example.com"},
	"ipv4":                  {validIP(true), "an IPv4 address", "192.0.2.1"},
	"ipv6":                  {validIP(false), "an IPv6 address", "2001:db8::1"},
	"uri":                   {validURI(true, false), "an absolute URI", "https://example.com/path"},
	"uri-reference":         {validURI(false, false), "a URI or a relative reference", "/path?q=1"},
	"iri":                   {validURI(true, true), "an absolute IRI", "https://example.com/path"},
	"iri-reference":         {validURI(false, true), "an IRI or a relative reference", "/path?q=1"},
	"uri-template":          {validURITemplate, "a URI template", "https://example.com/{id}"},
	"uuid":                  {uuidRE.MatchString, "a UUID", "123e4567-e89b-12d3-a456-426614174000"},
	"json-pointer":          {validJSONPointer, "a JSON pointer", "/items/0"},
	"relative-json-pointer": {validRelativeJSONPointer, "a relative JSON pointer", "1/name"},
	"regex":                 {validRegex, "a regular expression", "^[a-z]+$"},
}

// checkFormats checks every string of inst that s (within root) gives a
// known format, and returns the first failure as `"field": must be ...`.
func checkFormats(s, root *jsonschema.Schema, inst any, path []string, depth int) string {
	if s == nil || depth > 64 {
		return ""
	}
	if s.Ref != "" {
		if target := refTarget(root, s.Ref); target != nil {
			if msg := checkFormats(target, root, inst, path, depth+1); msg != "" {
				return msg
			}
		}
	}
	if str, ok := inst.(string); ok && s.Format != "" {
		if f, known := formats[s.Format]; known && !f.valid(str) {
			rule := fmt.Sprintf("must be %s (format %s, such as %s), not %s", f.what, s.Format, f.example, strconv.Quote(str))
			if field := joinFields(path); field != "" {
				return strconv.Quote(field) + ": " + rule
			}
			return rule
		}
	}
	for _, sub := range s.AllOf {
		if msg := checkFormats(sub, root, inst, path, depth+1); msg != "" {
			return msg
		}
	}
	// Of anyOf and oneOf, the value must pass one branch: the validator
	// already chose the branches its type fits; report the first failure
	// only when no branch passes.
	for _, alts := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf} {
		first := ""
		for _, sub := range alts {
			if !typeFits(sub, root, inst) {
				continue
			}
			msg := checkFormats(sub, root, inst, path, depth+1)
			if msg == "" {
				first = ""
				break
			}
			if first == "" {
				first = msg
			}
		}
		if first != "" {
			return first
		}
	}
	switch v := inst.(type) {
	case map[string]any:
		// By name: of two fields with a bad format, the same one is named
		// each time.
		for _, name := range slices.Sorted(maps.Keys(v)) {
			val := v[name]
			sub := s.Properties[name]
			if sub == nil {
				sub = s.AdditionalProperties
			}
			p := append(path[:len(path):len(path)], name)
			if sub == s.AdditionalProperties && s.Properties[name] == nil {
				p = append(path[:len(path):len(path)], "{}")
			}
			if msg := checkFormats(sub, root, val, p, depth+1); msg != "" {
				return msg
			}
		}
	case []any:
		for i, val := range v {
			sub := s.Items
			if i < len(s.PrefixItems) {
				sub = s.PrefixItems[i]
			}
			if msg := checkFormats(sub, root, val, append(path[:len(path):len(path)], "[]"), depth+1); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// typeFits reports whether s (following a reference) allows the JSON type
// of inst, or says nothing about types.
func typeFits(s, root *jsonschema.Schema, inst any) bool {
	for i := 0; s != nil && s.Ref != "" && i < 8; i++ {
		s = refTarget(root, s.Ref)
	}
	if s == nil {
		return true
	}
	types := s.Types
	if s.Type != "" {
		types = append(types, s.Type)
	}
	if len(types) == 0 {
		return true
	}
	var got string
	switch v := inst.(type) {
	case nil:
		got = "null"
	case bool:
		got = "boolean"
	case string:
		got = "string"
	case map[string]any:
		got = "object"
	case []any:
		got = "array"
	case float64:
		got = "number"
		if v == float64(int64(v)) {
			got = "integer"
		}
	default:
		return true
	}
	for _, t := range types {
		if t == got || (t == "number" && got == "integer") {
			return true
		}
	}
	return false
}

// refTarget resolves the local references generated schemas use: "#" and
// "#/$defs/NAME".
func refTarget(root *jsonschema.Schema, ref string) *jsonschema.Schema {
	if ref == "#" {
		return root
	}
	if name, ok := strings.CutPrefix(ref, "#/$defs/"); ok {
		return root.Defs[unescapePointer(name)]
	}
	return nil
}

func validDate(s string) bool {
	_, err := time.Parse(time.DateOnly, s)
	return err == nil
}

func validDateTime(s string) bool {
	// RFC 3339 allows a lower-case t and z; Go's layout wants them upper.
	_, err := time.Parse(time.RFC3339, strings.ToUpper(s))
	return err == nil && len(s) >= len("2006-01-02T15:04:05Z")
}

func validTime(s string) bool {
	_, err := time.Parse("15:04:05Z07:00", strings.ToUpper(s))
	return err == nil
}

var durationRE = regexp.MustCompile(`^P(?:[0-9]+W|(?:[0-9]+Y)?(?:[0-9]+M)?(?:[0-9]+D)?(?:T(?:[0-9]+H)?(?:[0-9]+M)?(?:[0-9]+(?:[.,][0-9]+)?S)?)?)$`)

func validDuration(s string) bool {
	// At least one number, and a T is followed by one.
	return durationRE.MatchString(s) && strings.ContainsAny(s, "0123456789") && !strings.HasSuffix(s, "T")
}

func validEmail(intl bool) func(string) bool {
	return func(s string) bool {
		a, err := mail.ParseAddress(s)
		if err != nil || a.Name != "" || a.Address != s {
			return false
		}
		if !intl {
			for _, r := range s {
				if r > unicode.MaxASCII {
					return false
				}
			}
		}
		return true
	}
}

func validHostname(intl bool) func(string) bool {
	return func(s string) bool {
		s = strings.TrimSuffix(s, ".")
		if s == "" || len(s) > 253 {
			return false
		}
		for _, label := range strings.Split(s, ".") {
			if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
				return false
			}
			for _, r := range label {
				ok := r == '-' || r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))
				if intl {
					ok = ok || r > unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r))
				}
				if !ok {
					return false
				}
			}
		}
		return true
	}
}

func validIP(v4 bool) func(string) bool {
	return func(s string) bool {
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return false
		}
		if v4 {
			return a.Is4()
		}
		return a.Is6()
	}
}

func validURI(absolute, intl bool) func(string) bool {
	return func(s string) bool {
		for _, r := range s {
			if unicode.IsSpace(r) || unicode.IsControl(r) || (!intl && r > unicode.MaxASCII) || strings.ContainsRune(`"<>\^`+"`{|}", r) {
				return false
			}
		}
		u, err := url.Parse(s)
		return err == nil && (!absolute || u.Scheme != "")
	}
}

func validURITemplate(s string) bool {
	open := false
	for _, r := range s {
		switch {
		case r == '{' && !open:
			open = true
		case r == '}' && open:
			open = false
		case r == '{' || r == '}' || unicode.IsSpace(r):
			return false
		}
	}
	return !open
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

func validJSONPointer(s string) bool {
	if s == "" {
		return true
	}
	if s[0] != '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && (i+1 == len(s) || (s[i+1] != '0' && s[i+1] != '1')) {
			return false
		}
	}
	return true
}

var relPointerRE = regexp.MustCompile(`^(?:0|[1-9][0-9]*)(#|/.*)?$`)

func validRelativeJSONPointer(s string) bool {
	m := relPointerRE.FindStringSubmatch(s)
	return m != nil && (m[1] == "" || m[1] == "#" || validJSONPointer(m[1]))
}

func validRegex(s string) bool {
	_, err := regexp.Compile(s)
	return err == nil
}
