package connector

import (
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

type level int8

type tone string

func TestBind(t *testing.T) {
	var (
		i int64
		l level
		u uint16
		f float32
		b bool
		s tone
	)
	for _, ok := range []error{
		BindInt(&i, "id", "-42"), BindInt(&l, "level", "7"), BindUint(&u, "page", "65535"),
		BindFloat(&f, "ratio", "0.5"), BindBool(&b, "draft", "true"), BindString(&s, "tone", "warm"),
	} {
		if ok != nil {
			t.Fatal(ok)
		}
	}
	if i != -42 || l != 7 || u != 65535 || f != 0.5 || !b || s != "warm" {
		t.Errorf("bound %v %v %v %v %v %q", i, l, u, f, b, s)
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{BindInt(&l, "level", "200"), `level="200" is out of range`},
		{BindInt(&i, "id", "abc"), `id="abc" is not an integer`},
		{BindUint(&u, "page", "-1"), `page="-1" is not a non-negative integer`},
		{BindFloat(&f, "ratio", "x"), `ratio="x" is not a number`},
		{BindBool(&b, "draft", "maybe"), `draft="maybe" is not true or false`},
	} {
		var we *jsonrpc.Error
		if !errors.As(tc.err, &we) || we.Code != jsonrpc.CodeInvalidParams || we.Message != tc.want {
			t.Errorf("got %v, want invalid params %q", tc.err, tc.want)
		}
	}
	if p := BoolPtr(true); p == nil || !*p {
		t.Error("BoolPtr")
	}
}
