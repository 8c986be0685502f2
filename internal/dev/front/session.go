package front

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// session returns the connector session paired with host, connecting it on
// first use. A nil host gets the control session.
func (f *Front) session(ctx context.Context, c *Conn, host *mcp.ServerSession) (*hostLink, error) {
	if host == nil {
		l := &hostLink{cs: c.control, ready: make(chan struct{})}
		close(l.ready)
		return l, nil
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, errors.New("the connector is restarting; try again")
	}
	l := c.hosts[host]
	if l == nil {
		l = &hostLink{ready: make(chan struct{})}
		c.hosts[host] = l
		c.mu.Unlock()
		l.cs, l.err = connectForHost(ctx, c, host, l)
		close(l.ready)
		if l.err == nil {
			go func() {
				// The host session ended: end its connector session too.
				_ = host.Wait()
				c.mu.Lock()
				if c.hosts[host] == l {
					delete(c.hosts, host)
				}
				c.mu.Unlock()
				l.cs.Close()
			}()
		} else {
			c.mu.Lock()
			delete(c.hosts, host)
			c.mu.Unlock()
		}
	} else {
		c.mu.Unlock()
		select {
		case <-l.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if l.err != nil {
		return nil, l.err
	}
	return l, nil
}

// connectForHost opens a connector session on behalf of one host session:
// it claims the host's capabilities (so the connector asks for sampling or
// elicitation only when the host can answer) and relays what the connector
// sends back to that host.
func connectForHost(ctx context.Context, c *Conn, host *mcp.ServerSession, l *hostLink) (*mcp.ClientSession, error) {
	var hc mcp.ClientCapabilities
	if ip := host.InitializeParams(); ip != nil && ip.Capabilities != nil {
		hc = *ip.Capabilities
	}
	opts := &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{
			Extensions:  hc.Extensions,
			Sampling:    hc.Sampling,
			Elicitation: hc.Elicitation,
		},
		ProgressNotificationHandler: func(ctx context.Context, r *mcp.ProgressNotificationClientRequest) {
			ctx, done := l.relate(ctx)
			defer done()
			_ = host.NotifyProgress(ctx, r.Params)
		},
		LoggingMessageHandler: func(ctx context.Context, r *mcp.LoggingMessageRequest) {
			ctx, done := l.relate(ctx)
			defer done()
			_ = host.Log(ctx, r.Params)
		},
		ElicitationCompleteHandler: func(ctx context.Context, r *mcp.ElicitationCompleteNotificationRequest) {
			_ = host.NotifyElicitationComplete(ctx, r.Params)
		},
	}
	if hc.Sampling != nil {
		opts.CreateMessageHandler = func(ctx context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			ctx, done := l.relate(ctx)
			defer done()
			return host.CreateMessage(ctx, r.Params)
		}
	}
	if hc.Elicitation != nil {
		opts.ElicitationHandler = func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			ctx, done := l.relate(ctx)
			defer done()
			return host.Elicit(ctx, r.Params)
		}
	}
	name := "mcpgen-dev"
	if ip := host.InitializeParams(); ip != nil && ip.ClientInfo != nil {
		name = ip.ClientInfo.Name
	}
	cl := mcp.NewClient(&mcp.Implementation{Name: name, Version: "dev"}, opts)
	// The session outlives the host request that opened it, and the SDK
	// keeps the connect context's values for the session's lifetime: a
	// clean context keeps that request's identity out of later messages.
	// Its set-up is the front's own (devlink.OwnHeader): left out of
	// the connector's request log.
	cctx, cancel := context.WithTimeout(own(context.Background()), 15*time.Second)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	cs, err := cl.Connect(cctx, &mcp.StreamableClientTransport{Endpoint: c.proc.URL(), MaxRetries: -1, HTTPClient: c.client},
		&mcp.ClientSessionOptions{ProtocolVersion: childProtocol})
	if err != nil {
		return nil, fmt.Errorf("connecting to the connector: %w", err)
	}
	// The connector sends every level; the front's session filters by the
	// level this host asked for.
	if c.caps != nil && c.caps.Logging != nil {
		_ = cs.SetLoggingLevel(cctx, &mcp.SetLoggingLevelParams{Level: "debug"})
	}
	return cs, nil
}

// Attach opens the control session with p, a freshly started connector,
// and lists what it serves. Install then makes it the serving one.
func (f *Front) Attach(ctx context.Context, p Process) (*Conn, *Snapshot, error) {
	ctx = own(ctx) // the control session's requests are no host's
	notify := func() {
		if f.listChanged != nil {
			f.listChanged(p)
		}
	}
	c := &Conn{proc: p, hosts: map[*mcp.ServerSession]*hostLink{}, schemas: &schemaBytes{}}
	c.client = f.client(c.schemas)
	cl := mcp.NewClient(&mcp.Implementation{Name: "mcpgen-dev", Version: "dev"}, &mcp.ClientOptions{
		Capabilities:               &mcp.ClientCapabilities{},
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { notify() },
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) { notify() },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { notify() },
		ResourceUpdatedHandler: func(ctx context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			_ = f.srv.ResourceUpdated(ctx, r.Params)
		},
	})
	cs, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: p.URL(), MaxRetries: -1, HTTPClient: c.client},
		&mcp.ClientSessionOptions{ProtocolVersion: childProtocol})
	if err != nil {
		return nil, nil, fmt.Errorf("connecting to the connector: %w", err)
	}
	c.control = cs
	if ir := cs.InitializeResult(); ir != nil {
		c.caps = ir.Capabilities
	}
	snap, err := list(ctx, c)
	if err != nil {
		cs.Close()
		return nil, nil, err
	}
	f.mu.Lock()
	uris := slices.Collect(maps.Keys(f.subs))
	f.mu.Unlock()
	for _, u := range uris {
		_ = cs.Subscribe(ctx, &mcp.SubscribeParams{URI: u})
	}
	return c, snap, nil
}

// Relist reads the lists of the serving connector again, after it
// announced a change, and brings the front's in line. It does nothing when
// no connector serves.
func (f *Front) Relist(ctx context.Context) (Changes, error) {
	f.mu.Lock()
	c := f.cur
	f.mu.Unlock()
	if c == nil {
		return Changes{}, nil
	}
	snap, err := list(own(ctx), c)
	if err != nil {
		return Changes{}, err
	}
	f.mu.Lock()
	f.snap = snap
	f.mu.Unlock()
	return f.sync(), nil
}

// list reads every list the connector serves.
func list(ctx context.Context, c *Conn) (*Snapshot, error) {
	s := &Snapshot{}
	caps := c.caps
	if caps == nil {
		caps = &mcp.ServerCapabilities{}
	}
	cs := c.control
	if caps.Tools != nil {
		for t, err := range cs.Tools(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("tools/list: %w", err)
			}
			c.schemas.restore(t)
			s.Tools = append(s.Tools, t)
		}
	}
	if caps.Resources != nil {
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("resources/list: %w", err)
			}
			s.Resources = append(s.Resources, r)
		}
		for t, err := range cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("resources/templates/list: %w", err)
			}
			s.Templates = append(s.Templates, t)
		}
	}
	if caps.Prompts != nil {
		for p, err := range cs.Prompts(ctx, nil) {
			if err != nil {
				return nil, fmt.Errorf("prompts/list: %w", err)
			}
			s.Prompts = append(s.Prompts, p)
		}
	}
	return s, nil
}

// Process returns the connector process c links to.
func (c *Conn) Process() Process { return c.proc }

// Retire waits for the calls a connector is serving (up to grace), then
// closes its sessions and stops it.
func (c *Conn) Retire(grace time.Duration) {
	done := make(chan struct{})
	go func() { c.inflight.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
	}
	c.mu.Lock()
	c.closed = true
	links := slices.Collect(maps.Values(c.hosts))
	c.hosts = nil
	c.mu.Unlock()
	for _, l := range links {
		<-l.ready
		if l.cs != nil {
			l.cs.Close()
		}
	}
	if c.control != nil {
		c.control.Close()
	}
	c.proc.Stop(2 * time.Second)
}
