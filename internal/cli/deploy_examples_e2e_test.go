package cli_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpgen/mcpgen/internal/testenv"
)

// deployYAML returns the YAML block that follows the first line of
// docs/deploy.md starting with intro.
func deployYAML(t *testing.T, intro string) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(doc), "\n"+intro)
	if i < 0 {
		t.Fatalf("docs/deploy.md has no paragraph starting %q", intro)
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(string(doc[i:]))
	if m == nil {
		t.Fatalf("docs/deploy.md has no yaml block after %q", intro)
	}
	return m[1]
}

// probe is a Kubernetes HTTP probe.
type probe struct {
	HTTPGet struct {
		Path string
		Port int
	} `yaml:"httpGet"`
}

// TestDeployReplicaExamples checks the Docker Compose and Kubernetes
// examples of docs/deploy.md's "Many replicas" as written: every variable
// they set is one the binary reads, the health checks name its own, and
// the replicas they describe, started with that environment (the Redis
// address and the secret replaced by the test's own) behind HAProxy, form
// one connector that a 2025-11-25 session client calls through.
func TestDeployReplicaExamples(t *testing.T) {
	t.Parallel()
	bin := buildEverything(t)
	help, _ := exec.Command(bin, "--help").CombinedOutput()
	redis := testenv.StartRedis(t)
	key := filepath.Join(t.TempDir(), "state_key")
	if err := os.WriteFile(key, []byte("0123456789abcdef0123456789abcdef0123456789a=\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	var compose struct {
		Services map[string]struct {
			Environment map[string]string
			Deploy      struct{ Replicas int }
			Secrets     []string
			Healthcheck struct{ Test []string }
		}
		Secrets map[string]struct{ File string }
	}
	if err := yaml.Unmarshal([]byte(deployYAML(t, "Docker Compose")), &compose); err != nil {
		t.Fatalf("the Compose example: %v", err)
	}
	var k8s struct {
		Kind string
		Spec struct {
			Replicas int
			Template struct {
				Spec struct {
					Containers []struct {
						Env []struct {
							Name      string
							Value     string
							ValueFrom *struct{ SecretKeyRef struct{ Name, Key string } } `yaml:"valueFrom"`
						}
						ReadinessProbe probe `yaml:"readinessProbe"`
						LivenessProbe  probe `yaml:"livenessProbe"`
					}
				}
			}
		}
	}
	if err := yaml.Unmarshal([]byte(deployYAML(t, "Kubernetes")), &k8s); err != nil {
		t.Fatalf("the Kubernetes example: %v", err)
	}

	examples := map[string]struct {
		replicas int
		env      map[string]string
	}{}
	c, ok := compose.Services["connector"]
	if !ok || c.Deploy.Replicas < 2 {
		t.Fatalf("the Compose example has no connector service with replicas: %+v", compose)
	}
	if len(c.Healthcheck.Test) == 0 || c.Healthcheck.Test[len(c.Healthcheck.Test)-1] != "--healthcheck" {
		t.Errorf("the Compose health check %q does not run the binary's --healthcheck", c.Healthcheck.Test)
	}
	for _, s := range c.Secrets {
		if _, ok := compose.Secrets[s]; !ok {
			t.Errorf("the Compose example uses secret %q without defining it", s)
		}
	}
	examples["compose"] = struct {
		replicas int
		env      map[string]string
	}{c.Deploy.Replicas, c.Environment}

	if k8s.Kind != "Deployment" || k8s.Spec.Replicas < 2 || len(k8s.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("the Kubernetes example is not a Deployment of one container with replicas: %+v", k8s)
	}
	kc := k8s.Spec.Template.Spec.Containers[0]
	env := map[string]string{}
	for _, e := range kc.Env {
		env[e.Name] = e.Value
		if e.ValueFrom != nil {
			env[e.Name] = "@secret" // a Secret's value, which the test provides
		}
	}
	for _, p := range []probe{kc.ReadinessProbe, kc.LivenessProbe} {
		if p.HTTPGet.Path != "/healthz" || env["PORT"] != strconv.Itoa(p.HTTPGet.Port) {
			t.Errorf("the Kubernetes probe %+v does not reach /healthz on PORT %s", p, env["PORT"])
		}
	}
	examples["kubernetes"] = struct {
		replicas int
		env      map[string]string
	}{k8s.Spec.Replicas, env}

	for name, ex := range examples {
		t.Run(name, func(t *testing.T) {
			var environ []string
			for k, v := range ex.env {
				if strings.HasPrefix(k, "MCPGEN_") && !strings.Contains(string(help), k) {
					t.Errorf("%s sets %s, which the binary does not read (not in --help)", name, k)
				}
				switch {
				case k == "MCPGEN_STORE":
					if !strings.HasPrefix(v, "redis://redis:6379") {
						t.Errorf("%s: MCPGEN_STORE %q does not name the example's Redis", name, v)
					}
					v = redis.URL() + "/0"
				case k == "MCPGEN_STATE_KEY":
					v = "@" + key
				case k == "MCPGEN_ADDR" || k == "PORT":
					continue // each replica gets a port of its own (--addr)
				}
				environ = append(environ, k+"="+v)
			}
			var ups []string
			for range ex.replicas {
				c := startConnector(t, bin, environ)
				ups = append(ups, c.url)
				hc := exec.Command(bin, "--healthcheck")
				hc.Env = append(os.Environ(), "MCPGEN_ADDR="+strings.TrimSuffix(strings.TrimPrefix(c.url, "http://"), "/mcp"))
				if out, err := hc.CombinedOutput(); err != nil {
					t.Errorf("%s: --healthcheck against a replica: %v %s", name, err, out)
				}
			}
			lb := startHAProxy(t, ups)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "example-check", Version: "1"}, nil).
				Connect(ctx, &mcp.StreamableClientTransport{Endpoint: lb}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatalf("%s: a session through the replicas: %v", name, err)
			}
			defer cs.Close()
			for i := range 2 * ex.replicas {
				res, err := callTool(ctx, cs, "test_simple_text", map[string]any{})
				if err != nil || res.IsError {
					t.Fatalf("%s: call %d through the replicas: %v %v", name, i, res, err)
				}
			}
		})
	}
}
