package drain

import "testing"

func TestGate(t *testing.T) {
	var g Gate
	if !g.Enter() {
		t.Fatal("a gate refused a request before the drain")
	}
	idle := g.Close()
	if !g.Draining() || g.Enter() {
		t.Fatal("a draining gate admitted a request")
	}
	select {
	case <-idle:
		t.Fatal("the drain ended with a request still running")
	default:
	}
	g.Leave()
	<-idle // closed once the admitted request left
	var empty Gate
	<-empty.Close() // nothing ran: the drain ends at once
}
