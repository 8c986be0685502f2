package connector

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/internal/cmdline"
)

func envOf(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestCmdlinePrecedence(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		env   []string
		addr  string
		hosts string
		drain time.Duration
		stdio bool
	}{
		{"defaults", nil, nil, defaultAddr, "", defaultDrain, false},
		{"env", nil, []string{"MCPGEN_ADDR", "0.0.0.0:9", "MCPGEN_ALLOW_HOST", "a.test, b.test", "MCPGEN_DRAIN", "3s"}, "0.0.0.0:9", "a.test,b.test", 3 * time.Second, false},
		{"flag wins", []string{"--addr", "127.0.0.1:7", "--allow-host", "c.test", "--allow-host=d.test,e.test", "--drain=0s", "--stdio"},
			[]string{"MCPGEN_ADDR", "0.0.0.0:9", "MCPGEN_ALLOW_HOST", "a.test", "MCPGEN_DRAIN", "3s"}, "127.0.0.1:7", "c.test,d.test,e.test", 0, true},
		{"PORT", nil, []string{"PORT", "8123"}, "0.0.0.0:8123", "", defaultDrain, false},
		{"MCPGEN_ADDR over PORT", nil, []string{"PORT", "8123", "MCPGEN_ADDR", "127.0.0.1:1"}, "127.0.0.1:1", "", defaultDrain, false},
		{"--addr over PORT", []string{"--addr", "127.0.0.1:2"}, []string{"PORT", "8123"}, "127.0.0.1:2", "", defaultDrain, false},
	} {
		var stderr bytes.Buffer
		c := cmdline.New("x", &stderr, envOf(tc.env...))
		addr := c.String("addr", "MCPGEN_ADDR", defaultAddr, "")
		stdio := c.Bool("stdio", "", false, "")
		dep := deploymentFlags(c)
		if err := c.Parse(tc.args); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, err := listenAddr(c, *addr)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got != tc.addr || strings.Join(*dep.allowHosts, ",") != tc.hosts || *dep.drain != tc.drain || *stdio != tc.stdio {
			t.Errorf("%s: addr %q hosts %q drain %s stdio %v", tc.name, got, *dep.allowHosts, *dep.drain, *stdio)
		}
	}
}

func TestCmdlineBadValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  []string
		want string
	}{
		{nil, []string{"MCPGEN_DRAIN", "soon"}, `invalid value "soon" for environment variable MCPGEN_DRAIN (flag --drain)`},
		{nil, []string{"MCPGEN_STATELESS", "maybe"}, "MCPGEN_STATELESS"},
		{[]string{"--drain", "-1s"}, nil, "want a duration of 0 or more"},
		{[]string{"--drain", "x"}, nil, "invalid value \"x\" for flag -drain"},
	} {
		var stderr bytes.Buffer
		c := cmdline.New("x", &stderr, envOf(tc.env...))
		c.Bool("stateless", "MCPGEN_STATELESS", false, "")
		deploymentFlags(c)
		if err := c.Parse(tc.args); err == nil || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v %v: err %v, stderr %q; want %q", tc.args, tc.env, err, stderr.String(), tc.want)
		}
	}
	c := cmdline.New("x", new(bytes.Buffer), envOf("PORT", "http"))
	addr := c.String("addr", "MCPGEN_ADDR", defaultAddr, "")
	c.Parse(nil)
	if _, err := listenAddr(c, *addr); err == nil || !strings.Contains(err.Error(), "invalid PORT") {
		t.Errorf("PORT=http: %v", err)
	}
}

func TestDeploymentOptions(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		hosts   []string
		origins []string
		public  string
		err     string
	}{
		{args: []string{"--public-url", "https://Connector.Example.test/base", "--allow-origin", "https://app.example.test/"},
			hosts: []string{"connector.example.test"}, origins: []string{"https://app.example.test", "https://connector.example.test"}, public: "https://Connector.Example.test/base"},
		{args: []string{"--allow-host", "proxy.test:8443,[::1]"}, hosts: []string{"proxy.test", "::1"}},
		{args: []string{"--public-url", "https://mcp.test:443/mcp", "--allow-origin", "http://App.test:80,http://app.test:8080"},
			hosts: []string{"mcp.test"}, origins: []string{"http://app.test", "http://app.test:8080", "https://mcp.test"}, public: "https://mcp.test:443/mcp"},
		{args: []string{"--allow-host", "*.Example.test"}, hosts: []string{"*.example.test"}},
		{args: []string{"--allow-host", "a*.example.test"}, err: "want a host name"},
		{args: []string{"--allow-host", "https://x.test"}, err: "not a URL"},
		{args: []string{"--allow-origin", "app.example.test"}, err: "want an origin"},
		{args: []string{"--allow-origin", "https://app.test/path"}, err: "no path"},
		{args: []string{"--public-url", "mcp.example.test"}, err: "invalid --public-url"},
		{args: []string{"--public-url", "ftp://mcp.example.test"}, err: "invalid --public-url"},
	} {
		c := cmdline.New("x", new(bytes.Buffer), envOf())
		dep := deploymentFlags(c)
		if err := c.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		opts, err := dep.options()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: err %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		var o options
		for _, opt := range opts {
			opt(&o)
		}
		if strings.Join(o.allowedHosts, " ") != strings.Join(tc.hosts, " ") || strings.Join(o.allowedOrigins, " ") != strings.Join(tc.origins, " ") || o.publicURL != tc.public {
			t.Errorf("%v: hosts %q origins %q public %q", tc.args, o.allowedHosts, o.allowedOrigins, o.publicURL)
		}
	}
}

func TestLoggerFormats(t *testing.T) {
	var buf bytes.Buffer
	l, err := newLogger(&buf, "text", "debug")
	if err != nil {
		t.Fatal(err)
	}
	l.Error("panic in tool", "tool", "boom", "stack", "goroutine 1 [running]:\nmain.f()\n\t/x/y.go:3")
	want := "\tstack:\n\tgoroutine 1 [running]:\n\tmain.f()\n\t\t/x/y.go:3\n"
	if s := buf.String(); !strings.Contains(s, `msg="panic in tool" tool=boom stack=(below)`+"\n"+want) {
		t.Errorf("text log:\n%s", s)
	}
	buf.Reset()
	l, _ = newLogger(&buf, "json", "warn")
	l.Info("hidden")
	l.Warn("shown", "stack", "a\nb")
	if s := buf.String(); strings.Contains(s, "hidden") || !strings.Contains(s, `"stack":"a\nb"`) {
		t.Errorf("json log: %s", s)
	}
	if _, err := newLogger(&buf, "xml", "info"); err == nil || !strings.Contains(err.Error(), "want text or json") {
		t.Errorf("xml: %v", err)
	}
	if _, err := newLogger(&buf, "json", "loud"); err == nil || !strings.Contains(err.Error(), "--log-level") {
		t.Errorf("loud: %v", err)
	}
}
