package runtime

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrInputRequired is returned by Call.Ask while the client has not yet
// answered: under MCP 2026-07-28 a server cannot send a request to the
// client in the middle of a tool call. Instead the tool call ends with the
// question (an input-required result), the client answers it and calls the
// tool again, and the handler runs again from the start; this time Ask
// returns the answer. A handler that gets ErrInputRequired should return
// (any error will do: the runtime sends the question whatever the handler
// returns), and should do its side effects after its questions.
var ErrInputRequired = errors.New("mcpgen: waiting for the client to answer; return from the handler, it will be called again with the answer")

// multiRoundTrip reports whether the session speaks MCP 2026-07-28 or later,
// where server-to-client requests travel as input-required results.
func multiRoundTrip(ss *mcp.ServerSession) bool {
	if ss == nil {
		return true
	}
	ip := ss.InitializeParams()
	return ip == nil || ip.ProtocolVersion >= "2026-07-28"
}

// Ask sends a request to the client on behalf of the handler: an
// elicitation (*mcp.ElicitParams) or a sampling request
// (*mcp.CreateMessageParams). It returns the client's JSON answer
// (mcp.ElicitResult, mcp.CreateMessageResult or
// mcp.CreateMessageWithToolsResult), or ErrInputRequired (see there).
func (c *Call) Ask(ctx context.Context, req mcp.InputRequest) (json.RawMessage, error) {
	if c == nil {
		return nil, errors.New("mcpgen: no MCP request in this context; pass the ctx your handler received")
	}
	if !c.mrtr {
		if c.Session == nil {
			return nil, errors.New("mcpgen: this request has no client session to ask")
		}
		var res any
		var err error
		switch p := req.(type) {
		case *mcp.ElicitParams:
			res, err = c.Session.Elicit(ctx, p)
		case *mcp.CreateMessageParams:
			res, err = c.Session.CreateMessage(ctx, p)
		case *mcp.CreateMessageWithToolsParams:
			res, err = c.Session.CreateMessageWithTools(ctx, p)
		default:
			return nil, fmt.Errorf("mcpgen: cannot ask the client %T", req)
		}
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.canAsk {
		return nil, errors.New("mcpgen: under MCP 2026-07-28, only tool handlers can ask the client (elicitation, sampling)")
	}
	c.asked++
	id := "mcpgen-" + strconv.Itoa(c.asked)
	if raw, ok := c.answers[id]; ok {
		return raw, nil
	}
	if c.pending == nil {
		c.pending = mcp.InputRequestMap{}
	}
	c.pending[id] = req
	return nil, ErrInputRequired
}

// roundState is what a tool call carries from one round trip to the next:
// the answers of earlier rounds. It travels through the client as
// requestState, signed so that a client cannot forge answers.
type roundState struct {
	Tool    string                     `json:"t"`
	Answers map[string]json.RawMessage `json:"a"`
}

func (s *Server) signState(st roundState) (string, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, s.stateKey)
	mac.Write(b)
	enc := base64.RawURLEncoding
	return enc.EncodeToString(b) + "." + enc.EncodeToString(mac.Sum(nil)), nil
}

func (s *Server) openState(tool, state string) (map[string]json.RawMessage, error) {
	if state == "" {
		return nil, nil
	}
	enc := base64.RawURLEncoding
	payload, sig, ok := strings.Cut(state, ".")
	b, err1 := enc.DecodeString(payload)
	got, err2 := enc.DecodeString(sig)
	if !ok || err1 != nil || err2 != nil {
		return nil, errors.New("invalid requestState")
	}
	mac := hmac.New(sha256.New, s.stateKey)
	mac.Write(b)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return nil, errors.New("invalid requestState: it was not issued by this server (or the server restarted)")
	}
	var st roundState
	if err := json.Unmarshal(b, &st); err != nil || st.Tool != tool {
		return nil, errors.New("invalid requestState: it belongs to another tool call")
	}
	return st.Answers, nil
}

// prepareRounds loads the answers of earlier rounds into c.
func (t *tool) prepareRounds(c *Call, p *mcp.CallToolParamsRaw) error {
	c.mrtr = multiRoundTrip(c.Session)
	c.canAsk = true
	if !c.mrtr {
		return nil
	}
	answers, err := t.s.openState(t.def.Name, p.RequestState)
	if err != nil {
		return err
	}
	for id, r := range p.InputResponses {
		b, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("inputResponses[%q]: %v", id, err)
		}
		if answers == nil {
			answers = map[string]json.RawMessage{}
		}
		answers[id] = b
	}
	c.answers = answers
	return nil
}

// inputRequired returns the input-required result when the handler asked
// the client something not yet answered, or nil.
func (t *tool) inputRequired(c *Call) (*mcp.CallToolResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pending == nil {
		return nil, nil
	}
	state, err := t.s.signState(roundState{Tool: t.def.Name, Answers: c.answers})
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{InputRequests: c.pending, RequestState: state}, nil
}
