package egress

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// shapes are the secret shapes the one policy masks; each value holds the
// canary that must not pass the door.
var shapes = []struct{ name, in, canary string }{
	{"key=value", "password=Cn1ryKv", "Cn1ryKv"},
	{"json member", `{"password":"Cn2ryJs"}`, "Cn2ryJs"},
	{"json array", `{"password":["Cn3ryAr"]}`, "Cn3ryAr"},
	{"json nested object", `{"token":{"value":"Cn4ryOb"}}`, "Cn4ryOb"},
	{"escaped json", `{\"signing_key\":\"Cn5ryEs\"}`, "Cn5ryEs"},
	{"url", "postgres://app:Cn6ryUr@db:5432/x", "Cn6ryUr"},
	{"header", "Authorization: Bearer Cn7ryHdr0123456789", "Cn7ryHdr0123456789"},
	{"flag", "app --db-password Cn8ryFl", "Cn8ryFl"},
	{"provider token", "ghp_Cn9ryGh0123456789abcdefghij", "ghp_Cn9ryGh0123456789abcdefghij"},
	{"cjk key", "密码=Cn10ryCj", "Cn10ryCj"},
	{"full-width key", "ｐａｓｓｗｏｒｄ＝Cn11ryFw", "Cn11ryFw"},
	{"json key auth", `{"auth":"Cn12ryAu"}`, "Cn12ryAu"},
	{"oracle login", "login admin/Cn13ryOr@ORCL", "Cn13ryOr"},
	{"smtp pass colon", "smtp pass: Cn14rySm", "Cn14rySm"},
	{"prose token", "rotated token Cn15ryPr9x ok", "Cn15ryPr9x"},
	{"digit suffix key", `{"password2":"Cn16ryD2"}`, "Cn16ryD2"},
	{"dotted setting", `myapp.token2=Cn17ryMy`, "Cn17ryMy"},
	{"key=value in semicolons", "Server=db;Pwd=Cn18ryPw;Uid=sa", "Cn18ryPw"},
	{"control split key", "pass\x11word=Cn19ryCt", "Cn19ryCt"},
}

func TestMaskHidesEveryShape(t *testing.T) {
	for _, c := range shapes {
		got := Mask(c.in).String()
		if strings.Contains(got, c.canary) {
			t.Errorf("%s: Mask(%q) = %q keeps the canary", c.name, c.in, got)
		}
		if !strings.Contains(got, Marker) {
			t.Errorf("%s: Mask(%q) = %q has no marker", c.name, c.in, got)
		}
		if shown := Mask(c.in).Shown().String(); strings.Contains(shown, c.canary) {
			t.Errorf("%s: Shown reveals the canary: %q", c.name, shown)
		}
	}
}

func TestMaskKeepsOrdinaryText(t *testing.T) {
	for _, s := range []string{
		"SELECT password::int FROM users",
		"tests pass: 12 fail: 0",
		"the token expired; log in again",
		"prompt_tokens=1200 max_tokens=60000",
		"oauth_enabled=true author=bob",
	} {
		if got := Mask(s).String(); got != s {
			t.Errorf("Mask(%q) = %q, want it unchanged", s, got)
		}
	}
}

func TestConstAndSprintfKeepOurWords(t *testing.T) {
	const why = "function bodies, which can hold credentials: reading it is not allowed"
	if got := Const(why).String(); got != why {
		t.Errorf("Const = %q", got)
	}
	got := Sprintf("pg_get_functiondef() returns %s (%s), %d rows", Const(why), "password=Cn20ry", 3).String()
	want := "pg_get_functiondef() returns " + why + " (password=" + Marker + "), 3 rows"
	if got != want {
		t.Errorf("Sprintf = %q\nwant %q", got, want)
	}
	if got := Sprintf("%s", Mask("token=x")).String(); got != "token="+Marker {
		t.Errorf("a Text argument is inserted as it is: %q", got)
	}
}

func TestErrorAndCompose(t *testing.T) {
	if !Error(nil).IsZero() {
		t.Error("Error(nil) is not empty")
	}
	e := Error(io.ErrUnexpectedEOF)
	if e.String() != io.ErrUnexpectedEOF.Error() {
		t.Errorf("Error = %q", e)
	}
	j := Join([]Text{Const("a"), Mask("password=x")}, ", ")
	if j.String() != "a, password="+Marker {
		t.Errorf("Join = %q", j)
	}
	if c := Concat(Const("a"), Const("b")); c.String() != "ab" {
		t.Errorf("Concat = %q", c)
	}
	if l := Mask("a\nb\tc\x1b[31m").Line().String(); l != "a b c" {
		t.Errorf("Line = %q", l)
	}
	if c := Const("héllo").Cut(2).String(); c != "h" {
		t.Errorf("Cut = %q", c)
	}
	b, _ := json.Marshal(struct{ T Text }{Mask("token=x")})
	if string(b) != `{"T":"token=[REDACTED]"}` {
		t.Errorf("MarshalJSON = %s", b)
	}
}

func TestMaskJSON(t *testing.T) {
	j, err := MaskJSON([]byte(`{"a":{"token":{"value":"Cn21ry"}},"b":["password=Cn22ry"],"n":1}`))
	if err != nil {
		t.Fatal(err)
	}
	s := string(j.Bytes())
	if strings.Contains(s, "Cn21ry") || strings.Contains(s, "Cn22ry") || !json.Valid(j.Bytes()) {
		t.Errorf("MaskJSON = %s", s)
	}
	if _, err := MaskJSON([]byte(`{"a":`)); err == nil {
		t.Error("MaskJSON took a cut document")
	}
	if z, err := MaskJSON(nil); err != nil || !z.IsZero() {
		t.Errorf("MaskJSON(nil) = %v, %v", z, err)
	}
	if b, _ := (JSON{}).MarshalJSON(); string(b) != "null" {
		t.Errorf("absent JSON marshals as %s", b)
	}
	if b, _ := j.MarshalJSON(); string(b) != s {
		t.Errorf("JSON marshals as %s", b)
	}
}

func TestPolicyWithCredential(t *testing.T) {
	p := Policy{}.WithCredential("ops", "Hunter2Alpaca", "")
	if got := p.Text("echo Hunter2Alpaca and SHVudGVyMkFscGFjYQ==").String(); strings.Contains(got, "Hunter2Alpaca") || strings.Contains(got, "SHVudGVyMkFscGFjYQ") {
		t.Errorf("Policy.Text = %q", got)
	}
	if got := Mask("echo Hunter2Alpaca").String(); got != "echo Hunter2Alpaca" {
		t.Errorf("the zero policy knows no credential: %q", got)
	}
	short := Policy{}.WithCredential("", "", "e")
	if got := short.Text("query_logs").String(); got != "query_logs" {
		t.Errorf("a one-letter credential rewrote text: %q", got)
	}
	j, err := p.JSON([]byte(`{"m":"Hunter2Alpaca"}`))
	if err != nil || strings.Contains(string(j.Bytes()), "Hunter2Alpaca") {
		t.Errorf("Policy.JSON = %s, %v", j.Bytes(), err)
	}
	if got := p.Sprintf("key %s", "Hunter2Alpaca").String(); got != "key "+Marker {
		t.Errorf("Policy.Sprintf = %q", got)
	}
	if !p.Error(nil).IsZero() || p.Error(io.EOF).String() != "EOF" {
		t.Error("Policy.Error")
	}
}

func TestTransportMasksBodies(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, string(b))
	}))
	defer srv.Close()
	c := &http.Client{Transport: Transport(nil)}
	for _, body := range []string{`{"messages":[{"content":"password=Cn23ry"}]}`, "token=Cn24ry plain"} {
		resp, err := c.Post(srv.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(got) != 3 {
		t.Fatalf("server got %d requests", len(got))
	}
	for _, b := range got[:2] {
		if strings.Contains(b, "Cn23ry") || strings.Contains(b, "Cn24ry") || !strings.Contains(b, Marker) {
			t.Errorf("the server received %q", b)
		}
	}
	if !json.Valid([]byte(got[0])) {
		t.Errorf("a JSON body stopped being JSON: %s", got[0])
	}
}

// ownErr is an error whose text the policy made.
type ownErr struct{ t Text }

func (e ownErr) Error() string    { return e.t.String() }
func (e ownErr) EgressText() Text { return e.t }

// TestErrorKeepsOwnWords (issue 34 item 19): an error whose text Sprintf
// made passes Error as it is (its argument masked, our words not), and
// wrapped in an error of unknown words it is masked whole.
func TestErrorKeepsOwnWords(t *testing.T) {
	err := ownErr{Sprintf("bodies, which can hold credentials: reading %s is not allowed", "password=hunter2")}
	if got := Error(err).String(); got != "bodies, which can hold credentials: reading password="+Marker+" is not allowed" {
		t.Errorf("Error(own) = %q", got)
	}
	if got := Error(fmt.Errorf("x: %w", err)).String(); strings.Contains(got, "hunter2") || !strings.Contains(got, "credentials: "+Marker) {
		t.Errorf("Error(wrapped own) = %q", got)
	}
}
