// Package tagopt is the one copy of the grammar of mcpgen struct tags
// (mcpgen:"min=1,title='Range, short'"), shared by the generator (schema
// constraints of tool inputs and outputs) and the runtime (the fields of
// an mcpgen.Elicit form), so that both read a tag the same way.
package tagopt

import "strings"

// Option is one option of an mcpgen struct tag: name or name=value.
// Off and ValOff are byte offsets into the tag value (the text between the
// quotes of mcpgen:"...").
type Option struct {
	Key      string
	Value    string
	HasValue bool
	Quoted   bool
	Off      int
	ValOff   int
}

// Error is a syntax problem in a tag value at byte offset Off.
type Error struct {
	Off  int
	Kind string // "empty", "unterminated", "afterQuote"
	Text string
}

// Parse splits an mcpgen tag value into its options. Options are separated
// by commas; a value may be quoted with single quotes to hold commas
// (pattern='^[a-z]{1,3}$'), and a doubled quote inside them stands for one.
// Spaces around names and unquoted values are trimmed.
func Parse(s string) ([]Option, []Error) {
	var opts []Option
	var errs []Error
	i := 0
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for i <= len(s) {
		// key
		start := i
		for i < len(s) && s[i] != '=' && s[i] != ',' {
			i++
		}
		key := strings.TrimSpace(s[start:i])
		keyOff := start + strings.Index(s[start:i], key)
		if key == "" {
			keyOff = start
		}
		o := Option{Key: key, Off: keyOff}
		if i < len(s) && s[i] == '=' {
			i++
			o.HasValue = true
			j := i
			for j < len(s) && s[j] == ' ' {
				j++
			}
			if j < len(s) && s[j] == '\'' {
				o.Quoted = true
				o.ValOff = j + 1
				var b strings.Builder
				k := j + 1
				closed := false
				for k < len(s) {
					if s[k] == '\'' {
						if k+1 < len(s) && s[k+1] == '\'' {
							b.WriteByte('\'')
							k += 2
							continue
						}
						closed = true
						k++
						break
					}
					b.WriteByte(s[k])
					k++
				}
				o.Value = b.String()
				if !closed {
					errs = append(errs, Error{Off: j, Kind: "unterminated"})
					if key != "" {
						opts = append(opts, o)
					}
					return opts, errs
				}
				// only spaces may follow, up to the comma
				m := k
				for m < len(s) && s[m] != ',' {
					m++
				}
				if rest := strings.TrimSpace(s[k:m]); rest != "" {
					errs = append(errs, Error{Off: k + strings.Index(s[k:m], rest), Kind: "afterQuote", Text: rest})
				}
				i = m
			} else {
				for i < len(s) && s[i] != ',' {
					i++
				}
				raw := s[j:i]
				o.Value = strings.TrimRight(raw, " ")
				o.ValOff = j
			}
		}
		if key == "" {
			errs = append(errs, Error{Off: keyOff, Kind: "empty"})
		} else {
			opts = append(opts, o)
		}
		if i >= len(s) {
			break
		}
		i++ // the comma
		if i == len(s) {
			errs = append(errs, Error{Off: i - 1, Kind: "empty"})
			break
		}
	}
	return opts, errs
}
