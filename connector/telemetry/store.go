package telemetry

import (
	"context"
	"errors"
	"iter"
	"time"

	"github.com/mcpgen/mcpgen/connector/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Attribute keys of store round trips.
const (
	keyDBSystem       = attribute.Key("db.system.name")
	keyStoreOperation = attribute.Key("mcpgen.store.operation")
	keyStoreOutcome   = attribute.Key("mcpgen.store.outcome")
)

// clientSpan is the option of every store span's kind, made once.
var clientSpan = trace.WithSpanKind(trace.SpanKindClient)

// The operations of a store, in the order of storeOps.
const (
	opSessionsCreate = iota
	opSessionsGet
	opSessionsPut
	opSessionsTouch
	opSessionsDelete
	opEventsOpen
	opEventsAppend
	opEventsRecord
	opEventsAfter
	opEventsSessionClosed
	opBusPublish
	opBusSubscribe
	opLimiterTake
	opTasksCreate
	opTasksGet
	opTasksUpdate
	opTasksList
	opSecretsKey
	opRecordsCreate
	opRecordsPut
	opRecordsGet
	opRecordsTake
	opRecordsDelete
	numStoreOps
)

var storeOps = [numStoreOps]string{
	"Sessions.Create", "Sessions.Get", "Sessions.Put", "Sessions.Touch", "Sessions.Delete",
	"Events.Open", "Events.Append", "Events.Record", "Events.After", "Events.SessionClosed",
	"Bus.Publish", "Bus.Subscribe",
	"Limiter.Take",
	"Tasks.Create", "Tasks.Get", "Tasks.Update", "Tasks.List",
	"Secrets.Key",
	"Records.Create", "Records.Put", "Records.Get", "Records.Take", "Records.Delete",
}

// storeOp is what the span and the metric of one operation say, made once.
type storeOp struct {
	name  string               // span name: "store Tasks.Get"
	attrs []attribute.KeyValue // span attributes
	ok    metric.MeasurementOption
	// failed are the metric attributes of a failure, by error.type.
	failed map[string]metric.MeasurementOption
}

// Store returns st with each call that reaches the backend recorded: a
// client span named "store <Interface>.<Method>" ("store Tasks.Get") when
// the call's ctx carries a span (a request's or a task's: the round trips
// made on their behalf nest under them; background work such as lease
// renewals starts no trace of its own), and its duration in
// mcpgen.store.operation.duration. A nil t, a nil st and the in-process
// memory store (*store.Memory, which makes no round trips) are returned
// as they are, so they cost nothing.
//
// The store returned keeps st's Health method (a backend's health check
// for /healthz); Unwrap returns st.
func (t *Telemetry) Store(st store.Store) store.Store {
	if t == nil || st == nil {
		return st
	}
	if _, mem := st.(*store.Memory); mem {
		return st
	}
	if _, done := st.(*tracedStore); done {
		return st
	}
	system := ""
	if n, ok := st.(interface{ DBSystem() string }); ok {
		system = n.DBSystem()
	}
	ts := &tracedStore{inner: st, t: t}
	for i, name := range storeOps {
		base := []attribute.KeyValue{keyStoreOperation.String(name)}
		if system != "" {
			base = append(base, keyDBSystem.String(system))
		}
		o := &ts.ops[i]
		o.name = "store " + name
		o.attrs = base
		o.ok = metric.WithAttributeSet(attribute.NewSet(base...))
		o.failed = map[string]metric.MeasurementOption{}
		for _, e := range []string{"cancelled", "timeout", "full", other} {
			o.failed[e] = metric.WithAttributeSet(attribute.NewSet(append(base[:len(base):len(base)], keyErrorType.String(e))...))
		}
	}
	ts.sessions = tracedSessions{ts, st.Sessions()}
	ts.events = tracedEvents{ts, st.Events()}
	ts.bus = tracedBus{ts, st.Bus()}
	ts.limiter = tracedLimiter{ts, st.Limiter()}
	ts.tasks = tracedTasks{ts, st.Tasks()}
	ts.secrets = tracedSecrets{ts, st.Secrets()}
	ts.records = tracedRecords{ts, st.Records()}
	return ts
}

// tracedStore is a store whose round trips are recorded (Telemetry.Store).
type tracedStore struct {
	inner store.Store
	t     *Telemetry
	ops   [numStoreOps]storeOp

	sessions tracedSessions
	events   tracedEvents
	bus      tracedBus
	limiter  tracedLimiter
	tasks    tracedTasks
	secrets  tracedSecrets
	records  tracedRecords
}

func (s *tracedStore) Sessions() store.Sessions { return &s.sessions }
func (s *tracedStore) Events() store.Events     { return &s.events }
func (s *tracedStore) Bus() store.Bus           { return &s.bus }
func (s *tracedStore) Limiter() store.Limiter   { return &s.limiter }
func (s *tracedStore) Tasks() store.Tasks       { return &s.tasks }
func (s *tracedStore) Secrets() store.Secrets   { return &s.secrets }
func (s *tracedStore) Records() store.Records   { return &s.records }
func (s *tracedStore) Close() error             { return s.inner.Close() }

// Unwrap returns the store underneath.
func (s *tracedStore) Unwrap() store.Store { return s.inner }

// Health is the health of the store underneath (nil when it has no
// health check).
func (s *tracedStore) Health() error {
	if h, ok := s.inner.(interface{ Health() error }); ok {
		return h.Health()
	}
	return nil
}

// storeCall is one operation under way.
type storeCall struct {
	o     *storeOp
	start time.Time
	span  trace.Span
}

// begin starts recording operation op; the call's ctx carries its span.
func (s *tracedStore) begin(ctx context.Context, op int) (context.Context, storeCall) {
	c := storeCall{o: &s.ops[op], start: time.Now()}
	if s.t.tracing && trace.SpanContextFromContext(ctx).IsValid() {
		ctx, c.span = s.t.tracer.Start(ctx, c.o.name, clientSpan, trace.WithTimestamp(c.start), trace.WithAttributes(c.o.attrs...))
	}
	return ctx, c
}

// end records the operation's duration and ends its span. The outcomes
// the store's contract names (not found, exists, conflict, final,
// events purged) are
// answers, not failures: the span notes them in mcpgen.store.outcome.
func (s *tracedStore) end(ctx context.Context, c storeCall, err error) {
	opt := c.o.ok
	errType := ""
	if err != nil {
		if outcome := storeOutcome(err); outcome != "" {
			if c.span != nil {
				c.span.SetAttributes(keyStoreOutcome.String(outcome))
			}
		} else {
			errType = storeErrorType(err)
			opt = c.o.failed[errType]
		}
	}
	s.t.storeDuration.Record(ctx, time.Since(c.start).Seconds(), opt)
	if c.span != nil {
		if errType != "" {
			c.span.SetAttributes(keyErrorType.String(errType))
			c.span.RecordError(err)
			c.span.SetStatus(codes.Error, err.Error())
		}
		c.span.End()
	}
}

// storeOutcome names an answer of the store's contract, "" for a failure.
func storeOutcome(err error) string {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "not_found"
	case errors.Is(err, store.ErrExists):
		return "exists"
	case errors.Is(err, store.ErrConflict):
		return "conflict"
	case errors.Is(err, store.ErrFinal):
		return "final"
	case errors.Is(err, mcp.ErrEventsPurged):
		return "purged"
	}
	return ""
}

// storeErrorType is the error.type of a failed operation: a bounded set.
func storeErrorType(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, store.ErrFull):
		return "full"
	}
	return other
}

type tracedSessions struct {
	s     *tracedStore
	inner store.Sessions
}

func (x *tracedSessions) Create(ctx context.Context, rec store.Session, ttl time.Duration) error {
	ctx, c := x.s.begin(ctx, opSessionsCreate)
	err := x.inner.Create(ctx, rec, ttl)
	x.s.end(ctx, c, err)
	return err
}

func (x *tracedSessions) Get(ctx context.Context, id string) (store.Session, error) {
	ctx, c := x.s.begin(ctx, opSessionsGet)
	rec, err := x.inner.Get(ctx, id)
	x.s.end(ctx, c, err)
	return rec, err
}

func (x *tracedSessions) Put(ctx context.Context, rec store.Session, ttl time.Duration) error {
	ctx, c := x.s.begin(ctx, opSessionsPut)
	err := x.inner.Put(ctx, rec, ttl)
	x.s.end(ctx, c, err)
	return err
}

func (x *tracedSessions) Touch(ctx context.Context, id string, ttl time.Duration) error {
	ctx, c := x.s.begin(ctx, opSessionsTouch)
	err := x.inner.Touch(ctx, id, ttl)
	x.s.end(ctx, c, err)
	return err
}

func (x *tracedSessions) Delete(ctx context.Context, id string) error {
	ctx, c := x.s.begin(ctx, opSessionsDelete)
	err := x.inner.Delete(ctx, id)
	x.s.end(ctx, c, err)
	return err
}

type tracedEvents struct {
	s     *tracedStore
	inner store.Events
}

func (x *tracedEvents) Open(ctx context.Context, sessionID, streamID string) error {
	ctx, c := x.s.begin(ctx, opEventsOpen)
	err := x.inner.Open(ctx, sessionID, streamID)
	x.s.end(ctx, c, err)
	return err
}

func (x *tracedEvents) Append(ctx context.Context, sessionID, streamID string, data []byte) error {
	ctx, c := x.s.begin(ctx, opEventsAppend)
	err := x.inner.Append(ctx, sessionID, streamID, data)
	x.s.end(ctx, c, err)
	return err
}

func (x *tracedEvents) Record(ctx context.Context, sessionID, streamID string, data ...[]byte) error {
	ctx, c := x.s.begin(ctx, opEventsRecord)
	err := x.inner.Record(ctx, sessionID, streamID, data...)
	x.s.end(ctx, c, err)
	return err
}

// RecordLater is recorded until its events are stored.
func (x *tracedEvents) RecordLater(ctx context.Context, sessionID, streamID string, done func(error), data ...[]byte) {
	ctx, c := x.s.begin(ctx, opEventsRecord)
	x.inner.RecordLater(ctx, sessionID, streamID, func(err error) {
		x.s.end(ctx, c, err)
		done(err)
	}, data...)
}

// After is recorded while its sequence is read: that is when the backend
// is asked.
func (x *tracedEvents) After(ctx context.Context, sessionID, streamID string, index int) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		ctx, c := x.s.begin(ctx, opEventsAfter)
		var failed error
		defer func() { x.s.end(ctx, c, failed) }()
		for data, err := range x.inner.After(ctx, sessionID, streamID, index) {
			if err != nil {
				failed = err
			}
			if !yield(data, err) {
				return
			}
		}
	}
}

func (x *tracedEvents) SessionClosed(ctx context.Context, sessionID string) error {
	ctx, c := x.s.begin(ctx, opEventsSessionClosed)
	err := x.inner.SessionClosed(ctx, sessionID)
	x.s.end(ctx, c, err)
	return err
}

type tracedBus struct {
	s     *tracedStore
	inner store.Bus
}

func (x *tracedBus) Publish(ctx context.Context, topic string, data []byte) error {
	ctx, c := x.s.begin(ctx, opBusPublish)
	err := x.inner.Publish(ctx, topic, data)
	x.s.end(ctx, c, err)
	return err
}

// Subscribe is recorded until the subscription is made; the messages it
// delivers are not.
func (x *tracedBus) Subscribe(ctx context.Context, topics ...string) (store.Subscription, error) {
	sctx, c := x.s.begin(ctx, opBusSubscribe)
	// The subscription lives in ctx, not in the span's ctx: it outlives
	// the span.
	sub, err := x.inner.Subscribe(ctx, topics...)
	x.s.end(sctx, c, err)
	return sub, err
}

type tracedLimiter struct {
	s     *tracedStore
	inner store.Limiter
}

func (x *tracedLimiter) Take(ctx context.Context, key string, n int, b store.Bucket) (bool, time.Duration, error) {
	ctx, c := x.s.begin(ctx, opLimiterTake)
	ok, retry, err := x.inner.Take(ctx, key, n, b)
	x.s.end(ctx, c, err)
	return ok, retry, err
}

type tracedTasks struct {
	s     *tracedStore
	inner store.Tasks
}

func (x *tracedTasks) Create(ctx context.Context, t store.Task) error {
	ctx, c := x.s.begin(ctx, opTasksCreate)
	err := x.inner.Create(ctx, t)
	x.s.end(ctx, c, err)
	return err
}

func (x *tracedTasks) Get(ctx context.Context, id string) (store.Task, error) {
	ctx, c := x.s.begin(ctx, opTasksGet)
	t, err := x.inner.Get(ctx, id)
	x.s.end(ctx, c, err)
	return t, err
}

func (x *tracedTasks) Update(ctx context.Context, id string, u store.TaskUpdate) (store.Task, error) {
	ctx, c := x.s.begin(ctx, opTasksUpdate)
	t, err := x.inner.Update(ctx, id, u)
	x.s.end(ctx, c, err)
	return t, err
}

func (x *tracedTasks) List(ctx context.Context, owner, cursor string, limit int) ([]store.Task, string, error) {
	ctx, c := x.s.begin(ctx, opTasksList)
	ts, next, err := x.inner.List(ctx, owner, cursor, limit)
	x.s.end(ctx, c, err)
	return ts, next, err
}

type tracedSecrets struct {
	s     *tracedStore
	inner store.Secrets
}

func (x *tracedSecrets) Key(ctx context.Context, name string, size int) ([]byte, error) {
	ctx, c := x.s.begin(ctx, opSecretsKey)
	k, err := x.inner.Key(ctx, name, size)
	x.s.end(ctx, c, err)
	return k, err
}

type tracedRecords struct {
	s     *tracedStore
	inner store.Records
}

func (x *tracedRecords) Create(ctx context.Context, key string, data []byte, ttl time.Duration) error {
	ctx, c := x.s.begin(ctx, opRecordsCreate)
	err := x.inner.Create(ctx, key, data, ttl)
	x.s.end(ctx, c, err)
	return err
}

func (x *tracedRecords) Put(ctx context.Context, key string, data []byte, ttl time.Duration) error {
	ctx, c := x.s.begin(ctx, opRecordsPut)
	err := x.inner.Put(ctx, key, data, ttl)
	x.s.end(ctx, c, err)
	return err
}

func (x *tracedRecords) Get(ctx context.Context, key string) ([]byte, error) {
	ctx, c := x.s.begin(ctx, opRecordsGet)
	b, err := x.inner.Get(ctx, key)
	x.s.end(ctx, c, err)
	return b, err
}

func (x *tracedRecords) Take(ctx context.Context, key string) ([]byte, error) {
	ctx, c := x.s.begin(ctx, opRecordsTake)
	b, err := x.inner.Take(ctx, key)
	x.s.end(ctx, c, err)
	return b, err
}

func (x *tracedRecords) Delete(ctx context.Context, key string) error {
	ctx, c := x.s.begin(ctx, opRecordsDelete)
	err := x.inner.Delete(ctx, key)
	x.s.end(ctx, c, err)
	return err
}
