package wire

import "testing"

func TestAnswerID(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{`{"jsonrpc":"2.0","id":2,"result":{}}`, `2`},
		{`{"jsonrpc":"2.0","id":-1.5e3,"error":{"code":1}}`, `-1.5e3`},
		{`{"jsonrpc":"2.0","id":"a\"b","result":{}}`, `"a\"b"`},
		{`{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{}}`, ``}, // a request of the server's
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, ``},
		{`{"jsonrpc":"2.0","id":null,"error":{}}`, ``},
		{`{"jsonrpc":"2.0","id":"unterminated`, ``},
		{`{"jsonrpc":"2.0","id":`, ``},
		{``, ``},
	} {
		if got := string(AnswerID([]byte(tc.msg))); got != tc.want {
			t.Errorf("AnswerID(%s) = %q, want %q", tc.msg, got, tc.want)
		}
		if IsAnswer([]byte(tc.msg)) != (tc.want != "") {
			t.Errorf("IsAnswer(%s) = %v", tc.msg, !(tc.want != ""))
		}
	}
}

func FuzzAnswerID(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":"x","result":{}}`))
	f.Fuzz(func(t *testing.T, p []byte) {
		if id := AnswerID(p); id != nil && !IsAnswer(p) {
			t.Fatalf("AnswerID found %q in a message IsAnswer rejects", id)
		}
	})
}
