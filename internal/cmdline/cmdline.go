// Package cmdline turns a connector binary's command line and environment
// into flag values: a flag given on the command line wins over its MCPGEN_
// variable, which wins over the default.
package cmdline

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// Set is a connector binary's flag set in which a flag may also be
// set from an environment variable: a flag given on the command line wins
// over its variable, which wins over the default. Platforms that run
// containers configure programs through the environment; people at a
// terminal use flags.
//
// Flags are declared in blocks, one per concern (serving, deployment,
// protocol, auth), each a function taking the cmdline and returning what
// it parsed; see Run.
type Set struct {
	fs      *flag.FlagSet
	lookup  func(string) (string, bool)
	env     []envFlag         // in declaration order
	fromEnv map[string]string // flag name -> the variable that set it
}

type envFlag struct{ flag, env string }

func New(name string, stderr io.Writer, lookup func(string) (string, bool)) *Set {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if lookup == nil {
		lookup = os.LookupEnv
	}
	return &Set{fs: fs, lookup: lookup, fromEnv: map[string]string{}}
}

// Var declares a flag whose value may also come from the environment
// variable env ("" for a flag without one).
func (c *Set) Var(v flag.Value, name, env, usage string) {
	if env != "" {
		usage += " [$" + env + "]"
		c.env = append(c.env, envFlag{name, env})
	}
	c.fs.Var(v, name, usage)
}

// String declares a string flag.
func (c *Set) String(name, env, def, usage string) *string {
	p := new(string)
	*p = def
	c.Var((*stringValue)(p), name, env, usage)
	return p
}

// Bool declares a boolean flag; its variable takes strconv.ParseBool's
// spellings (1, true, 0, false ...).
func (c *Set) Bool(name, env string, def bool, usage string) *bool {
	p := new(bool)
	*p = def
	c.Var((*boolValue)(p), name, env, usage)
	return p
}

// Duration declares a duration flag ("25s", "1m30s").
func (c *Set) Duration(name, env string, def time.Duration, usage string) *time.Duration {
	p := new(time.Duration)
	*p = def
	c.Var((*durationValue)(p), name, env, usage)
	return p
}

// Int declares an integer flag.
func (c *Set) Int(name, env string, def int, usage string) *int {
	p := new(int)
	*p = def
	c.Var((*intValue)(p), name, env, usage)
	return p
}

// List declares a flag that may be repeated and takes comma-separated
// values (--allow-host a.example --allow-host b.example, or
// MCPGEN_ALLOW_HOST=a.example,b.example). Values given on the command line
// replace those of the variable.
func (c *Set) List(name, env, usage string) *[]string {
	p := new([]string)
	c.Var((*listValue)(p), name, env, usage)
	return p
}

// Parse parses args, then sets every flag not given on the command line
// from its environment variable when that is set (even to ""). An invalid
// value names the variable that carried it.
func (c *Set) Parse(args []string) error {
	if err := c.fs.Parse(args); err != nil {
		return err
	}
	given := map[string]bool{}
	c.fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, e := range c.env {
		if given[e.flag] {
			continue
		}
		v, ok := c.lookup(e.env)
		if !ok {
			continue
		}
		if err := c.fs.Set(e.flag, v); err != nil {
			err = fmt.Errorf("invalid value %q for environment variable %s (flag --%s): %v", v, e.env, e.flag, err)
			fmt.Fprintln(c.fs.Output(), err)
			return err
		}
		c.fromEnv[e.flag] = e.env
	}
	return nil
}

// PrintDefaults prints the flags as the flag package does, but spelled
// the way the documentation and the usage line spell them: --addr, not
// -addr (the flag package accepts both).
func (c *Set) PrintDefaults() {
	var b strings.Builder
	out := c.fs.Output()
	c.fs.SetOutput(&b)
	c.fs.PrintDefaults()
	c.fs.SetOutput(out)
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if rest, ok := strings.CutPrefix(line, "  -"); ok {
			line = "  --" + rest
		}
		io.WriteString(out, line)
	}
}

// IsSet reports whether flag name was given on the command line or by its
// environment variable.
func (c *Set) IsSet(name string) bool {
	if _, ok := c.fromEnv[name]; ok {
		return true
	}
	set := false
	c.fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

type stringValue string

func (s *stringValue) Set(v string) error { *s = stringValue(v); return nil }
func (s *stringValue) String() string     { return string(*s) }

type boolValue bool

func (b *boolValue) Set(v string) error {
	x, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("want true or false")
	}
	*b = boolValue(x)
	return nil
}
func (b *boolValue) String() string   { return strconv.FormatBool(bool(*b)) }
func (b *boolValue) IsBoolFlag() bool { return true }

type durationValue time.Duration

func (d *durationValue) Set(v string) error {
	x, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("want a duration such as 25s or 1m30s")
	}
	if x < 0 {
		return fmt.Errorf("want a duration of 0 or more")
	}
	*d = durationValue(x)
	return nil
}
func (d *durationValue) String() string { return time.Duration(*d).String() }

type intValue int

func (i *intValue) Set(v string) error {
	x, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("want a whole number")
	}
	*i = intValue(x)
	return nil
}
func (i *intValue) String() string { return strconv.Itoa(int(*i)) }

type listValue []string

func (l *listValue) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}
func (l *listValue) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(*l, ",")
}

// ReadSecret returns the value of a secret flag such as
// --auth-client-secret: the value itself, or with @FILE the content of
// FILE without its final line break.
func ReadSecret(flag, v string) (string, error) {
	name, ok := strings.CutPrefix(v, "@")
	if !ok {
		return v, nil
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("%s: %v", flag, err)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

// Lookup reads an environment variable the way the set does.
func (c *Set) Lookup(name string) (string, bool) { return c.lookup(name) }

// Flags is the underlying flag set (its usage function and arguments).
func (c *Set) Flags() *flag.FlagSet { return c.fs }
