package connector

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/internal/cmdline"
)

// deployment holds the flags that put a connector binary behind a proxy or
// on a platform: the names it answers to, the browser origins it admits,
// its logs and how it stops.
type deployment struct {
	allowHosts   *[]string
	allowOrigins *[]string
	publicURL    *string
	logFormat    *string
	logLevel     *string
	drain        *time.Duration
}

func deploymentFlags(c *cmdline.Set) *deployment {
	return &deployment{
		allowHosts: c.List("allow-host", "MCPGEN_ALLOW_HOST",
			"also answer requests whose Host header is `NAME` (a proxy's public host name;\n*.example.com for its subdomains; repeatable or comma-separated; * admits every name)"),
		allowOrigins: c.List("allow-origin", "MCPGEN_ALLOW_ORIGIN",
			"also admit browser requests from `ORIGIN` such as https://app.example.com\n(repeatable or comma-separated; * admits every origin)"),
		publicURL: c.String("public-url", "MCPGEN_PUBLIC_URL", "",
			"the `URL` clients use to reach this server (such as https://mcp.example.com);\nits host and origin are admitted"),
		logFormat: c.String("log-format", "MCPGEN_LOG_FORMAT", "text", "log `FORMAT`: text or json"),
		logLevel:  c.String("log-level", "MCPGEN_LOG_LEVEL", "info", "log `LEVEL`: debug, info, warn or error"),
		drain: c.Duration("drain", "MCPGEN_DRAIN", defaultDrain,
			"on SIGTERM or SIGINT, let calls in flight finish for up to `DURATION`"),
	}
}

// options checks the deployment flags and turns them into server options.
func (d *deployment) options() ([]Option, error) {
	var opts []Option
	var hosts, origins []string
	for _, h := range *d.allowHosts {
		n, err := hostName(h)
		if err != nil {
			return nil, fmt.Errorf("invalid --allow-host %q: %v", h, err)
		}
		hosts = append(hosts, n)
	}
	for _, o := range *d.allowOrigins {
		n, err := normalOrigin(o)
		if err != nil {
			return nil, fmt.Errorf("invalid --allow-origin %q: %v", o, err)
		}
		origins = append(origins, n)
	}
	if *d.publicURL != "" {
		u, err := url.Parse(*d.publicURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
			return nil, fmt.Errorf("invalid --public-url %q: want an absolute http or https URL such as https://mcp.example.com", *d.publicURL)
		}
		hosts = append(hosts, strings.ToLower(u.Hostname()))
		origins = append(origins, originOf(u))
		opts = append(opts, WithPublicURL(u.String()))
	}
	if len(hosts) > 0 {
		opts = append(opts, WithAllowedHosts(hosts...))
	}
	if len(origins) > 0 {
		opts = append(opts, WithAllowedOrigins(origins...))
	}
	return opts, nil
}

// hostName checks an --allow-host value: a host name or IP address, with
// an optional port that is ignored (a proxy may or may not pass it on).
func hostName(h string) (string, error) {
	h = strings.TrimSpace(h)
	if h == "*" {
		return h, nil
	}
	if strings.Contains(h, "://") || strings.Contains(h, "/") {
		return "", fmt.Errorf("want a host name such as mcp.example.com, not a URL (use --public-url or --allow-origin for URLs)")
	}
	if hh, _, err := net.SplitHostPort(h); err == nil {
		h = hh
	}
	h = strings.Trim(h, "[]")
	if sub, ok := strings.CutPrefix(h, "*."); ok && sub != "" && !strings.Contains(sub, "*") {
		return strings.ToLower(h), nil
	}
	if h == "" || strings.ContainsAny(h, " \t@?#*") {
		return "", fmt.Errorf("want a host name such as mcp.example.com")
	}
	return strings.ToLower(h), nil
}

// normalOrigin checks an --allow-origin value and returns it as browsers
// send it in the Origin header: scheme://host[:port], lower case, no path.
func normalOrigin(o string) (string, error) {
	if o == "*" {
		return o, nil
	}
	u, err := url.Parse(strings.TrimSuffix(strings.TrimSpace(o), "/"))
	if err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
		return "", fmt.Errorf("want an origin such as https://app.example.com (scheme, host and optional port, no path)")
	}
	return originOf(u), nil
}

// originOf is the origin of u as browsers send it: lower case, without
// the scheme's default port.
func originOf(u *url.URL) string {
	host := strings.ToLower(u.Host)
	scheme := strings.ToLower(u.Scheme)
	if (scheme == "https" && strings.HasSuffix(host, ":443")) || (scheme == "http" && strings.HasSuffix(host, ":80")) {
		host = host[:strings.LastIndex(host, ":")]
	}
	return scheme + "://" + host
}

// listenAddr decides where to listen: --addr or MCPGEN_ADDR when given,
// else 0.0.0.0:$PORT when the platform set PORT (Cloud Run, Heroku,
// Render, Fly.io and others route outside traffic to that port on every
// interface), else defaultAddr, loopback only.
func listenAddr(c *cmdline.Set, addr string) (string, error) {
	if c.IsSet("addr") {
		return addr, nil
	}
	port, ok := c.Lookup("PORT")
	if !ok || port == "" {
		return addr, nil
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return "", fmt.Errorf("invalid PORT %q in the environment: want a port number", port)
	}
	return net.JoinHostPort("0.0.0.0", port), nil
}
