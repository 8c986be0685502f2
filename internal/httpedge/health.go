package httpedge

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// ProbeHealth asks the server listening on addr for GET /healthz and
// returns 0 when it answers 200, 1 otherwise. An unspecified host (0.0.0.0,
// ::) is reached on loopback.
func ProbeHealth(ctx context.Context, addr string, stderr io.Writer) int {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		fmt.Fprintf(stderr, "healthcheck: invalid address %q: %v\n", addr, err)
		return 1
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	url := "http://" + net.JoinHostPort(host, port) + "/healthz"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		fmt.Fprintf(stderr, "healthcheck: %v\n", err)
		return 1
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "healthcheck: %v\n", err)
		return 1
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "healthcheck: %s answered %s\n", url, resp.Status)
		return 1
	}
	return 0
}
