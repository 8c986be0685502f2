package hosts

import "testing"

func TestLoopback(t *testing.T) {
	for _, h := range []string{"localhost", "LOCALHOST", "localhost.", "app.localhost", "a.b.localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]"} {
		if !Loopback(h) {
			t.Errorf("Loopback(%q) = false", h)
		}
	}
	for _, h := range []string{"", "localhost.example.com", "notlocalhost", "evil.com", "10.0.0.1", "0.0.0.0", "::", "[::ffff:10.0.0.1]", "localhost:8080", "mylocalhost"} {
		if Loopback(h) {
			t.Errorf("Loopback(%q) = true", h)
		}
	}
}

func TestAllowed(t *testing.T) {
	allow := []string{"mcp.example.com", "*.corp.test", " Spaced.Example "}
	for _, h := range []string{"localhost", "dev.localhost", "127.0.0.1", "mcp.example.com", "MCP.example.com.", "a.corp.test", "a.b.corp.test", "spaced.example"} {
		if !Allowed(h, allow) {
			t.Errorf("Allowed(%q) = false", h)
		}
	}
	for _, h := range []string{"example.com", "corp.test", "xcorp.test", "evil.com", "mcp.example.com.evil.com", ""} {
		if Allowed(h, allow) {
			t.Errorf("Allowed(%q) = true", h)
		}
	}
	if !Allowed("anything.example", []string{"*"}) {
		t.Error(`"*" does not admit every host`)
	}
	if Allowed("", []string{""}) {
		t.Error("an empty entry admits an empty host")
	}
}

func FuzzAllowed(f *testing.F) {
	f.Add("a.corp.test", "*.corp.test")
	f.Add("localhost", "")
	f.Fuzz(func(t *testing.T, host, allow string) {
		if Allowed(host, nil) != Loopback(host) {
			t.Errorf("Allowed(%q, nil) differs from Loopback", host)
		}
		if Loopback(host) && !Allowed(host, []string{allow}) {
			t.Errorf("loopback %q not allowed", host)
		}
	})
}
