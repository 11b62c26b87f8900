// Package egress is the one door every byte leaving the process passes: the
// model server's request bodies, MCP results and errors, the printed output
// (answers, progress lines, errors, hints), the run store and what is read
// back from it. A sink accepts only a Text or a JSON, and the only ways to
// get one apply the policy: Mask, MaskJSON, Error, or Policy's methods for a
// source that masks more (its configured credential, its tainted keys).
// Const and Sprintf take our own texts, which must be constants, so a string
// read at run time cannot pass as ours.
//
// The policy has one strength, the strongest the project knows (see
// pkg/redact): secret value shapes, the values of secret-named keys (JSON
// members at any depth, arrays, escaped JSON, key=value pairs), and control
// characters that would hide a secret from those rules. A Policy may add to
// it, never take away.
package egress

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/superbiz/superbiz/internal/termsafe"
	"github.com/superbiz/superbiz/internal/textclip"
	"github.com/superbiz/superbiz/pkg/redact"
)

// Marker replaces every secret value, whatever the sink.
const Marker = redact.Marker

// Text is text that passed the egress policy. Its zero value is the empty
// text; there is no way to make one from a string but the policy's.
type Text struct{ s string }

// String is the masked text, for the sink that writes it.
func (t Text) String() string { return t.s }

// IsZero reports the empty text.
func (t Text) IsZero() bool { return t.s == "" }

// MarshalJSON encodes the masked text as a JSON string, so a Text member of
// an encoded struct is written masked.
func (t Text) MarshalJSON() ([]byte, error) { return json.Marshal(t.s) }

// Shown is the text as a terminal or a model may see it: its control
// characters and escape sequences stripped. Stripping cannot reveal a
// secret: the policy masked the text with and without them.
func (t Text) Shown() Text { return Text{termsafe.Strip(t.s)} }

// Line is Shown on one line: line breaks and tabs become spaces.
func (t Text) Line() Text { return Text{termsafe.Line(t.s)} }

// Cut keeps at most n bytes, on a rune boundary. Cutting masked text cannot
// reveal a secret (the mask came first).
func (t Text) Cut(n int) Text { return Text{textclip.Bytes(t.s, n)} }

// TrimRight drops the trailing bytes in cutset (a line break at the end of
// an error's text); trimming masked text cannot reveal a secret.
func (t Text) TrimRight(cutset constant) Text { return Text{strings.TrimRight(t.s, string(cutset))} }

// constant is the type of our own texts: an untyped string constant converts
// to it, a string variable cannot (its name is not exported), so only a
// constant written in the source reaches Const and Sprintf's format.
type constant string

// Const is one of our own texts (a label, a refusal, a hint), which is not
// masked: masking would mangle our words ("credentials: it is not
// allowed") and it holds no secret, being a constant of the source.
func Const(c constant) Text { return Text{string(c)} }

// Sprintf formats our own constant format with fmt's verbs. A Text or JSON
// argument is inserted as it is (it passed the policy already); every other
// argument is formatted and then masked on its own, so our words around it
// are never masked and its secrets never kept.
func Sprintf(format constant, args ...any) Text {
	return Policy{}.Sprintf(format, args...)
}

// Concat joins texts that passed the policy.
func Concat(parts ...Text) Text {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.s)
	}
	return Text{b.String()}
}

// Join joins texts with one of our constant separators.
func Join(parts []Text, sep constant) Text {
	ss := make([]string, len(parts))
	for i, p := range parts {
		ss[i] = p.s
	}
	return Text{strings.Join(ss, string(sep))}
}

// Mask passes text from outside the process (evidence, a server's answer,
// an error, a user's input) through the policy.
func Mask(s string) Text { return Policy{}.Text(s) }

// Error is Mask of err's text; a nil error is the empty text.
func Error(err error) Text { return Policy{}.Error(err) }

// JSON is a JSON document that passed the egress policy: every string masked
// as Mask does, every non-empty value of a secret-named member replaced by
// Marker (also inside JSON held in a string), still valid JSON.
type JSON struct{ b []byte }

// MaskJSON passes a JSON document through the policy; an error means raw is
// not one JSON document.
func MaskJSON(raw []byte) (JSON, error) { return Policy{}.JSON(raw) }

// Bytes is the masked document, for the sink that writes it; do not change it.
func (j JSON) Bytes() []byte { return j.b }

// IsZero reports the absent document.
func (j JSON) IsZero() bool { return len(j.b) == 0 }

// Shown is the document as a terminal or a model may see it: the control
// characters and escape sequences of its strings stripped (a JSON escape
// such as \u001b is still one for whoever decodes it).
func (j JSON) Shown() JSON {
	if len(j.b) == 0 {
		return j
	}
	out, err := redact.CleanJSON(j.b)
	if err != nil {
		// j passed the policy as JSON, so this cannot happen; show nothing
		// rather than something unstripped.
		return JSON{[]byte("null")}
	}
	return JSON{out}
}

// MarshalJSON writes the masked document as it is (null when absent).
func (j JSON) MarshalJSON() ([]byte, error) {
	if len(j.b) == 0 {
		return []byte("null"), nil
	}
	return j.b, nil
}

// Policy is the egress policy plus what one source adds: the credentials it
// was configured with, removed in every form a server echoes them. (A source
// that knows more secret names, such as a SQL column it tainted, masks those
// values before its text reaches the door.) The zero value is the policy
// itself; a Policy can only mask more.
type Policy struct {
	creds []Credential
}

// WithCredential adds a configured credential: its forms (as written,
// URL-encoded, JSON-escaped, base64 of it and of user:password) of at least
// MinBodySecret bytes are masked wherever they occur.
func (p Policy) WithCredential(username, password, token string) Policy {
	c := NewCredential(username, password, token)
	p.creds = append(append([]Credential(nil), p.creds...), c)
	return p
}

// Text passes s through the policy.
func (p Policy) Text(s string) Text { return Text{p.mask(s)} }

// Error is Text of err's text; a nil error is the empty text. An error
// whose text the policy made (it has a method EgressText() Text, such as a
// refusal built with Sprintf) passes as it is, so our words in it are not
// masked as data; wrapped in another error, whose words are not known to
// be ours, the whole text is masked.
func (p Policy) Error(err error) Text {
	if err == nil {
		return Text{}
	}
	if o, ok := err.(interface{ EgressText() Text }); ok {
		return Text{p.extra(o.EgressText().s)}
	}
	return p.Text(err.Error())
}

// Errorf is an error whose text is Sprintf(format, args...): our words, and
// arguments masked on their own, so egress.Error passes it as it is. A %w
// verb wraps its error argument (errors.Is and As see it) and inserts its
// text as Error gives it.
func Errorf(format constant, args ...any) error {
	var wrapped []error
	f := string(format)
	if strings.Contains(f, "%w") {
		f = strings.ReplaceAll(f, "%w", "%v")
		for _, a := range args {
			if err, ok := a.(error); ok {
				wrapped = append(wrapped, err)
			}
		}
	}
	return &ownError{text: Sprintf(constant(f), args...), wrapped: wrapped}
}

// ownError is Errorf's error.
type ownError struct {
	text    Text
	wrapped []error
}

func (e *ownError) Error() string { return e.text.s }

// EgressText is the error's text, made by the policy.
func (e *ownError) EgressText() Text { return e.text }

// Unwrap gives the errors a %w wrapped.
func (e *ownError) Unwrap() []error { return e.wrapped }

// Sprintf is the package's Sprintf under p.
func (p Policy) Sprintf(format constant, args ...any) Text {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case Text:
			out[i] = v.s
		case JSON:
			out[i] = string(v.b)
		case nil:
			out[i] = a
		case error:
			out[i] = p.Error(v).s
		default:
			out[i] = p.arg(a)
		}
	}
	return Text{fmt.Sprintf(string(format), out...)}
}

// arg is one Sprintf argument that is not a Text or a JSON: a number or a
// boolean (of a named type too, so its verb still applies, and its String
// method, our own code, names a value) as it is, bytes as the text they
// hold, anything else formatted and masked.
func (p Policy) arg(a any) any {
	v := reflect.ValueOf(a)
	switch v.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return a
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return p.mask(string(v.Bytes()))
		}
	}
	return p.mask(fmt.Sprint(a))
}

// JSON passes a JSON document through p.
func (p Policy) JSON(raw []byte) (JSON, error) {
	if len(raw) == 0 {
		return JSON{}, nil
	}
	out, err := redact.JSON(raw)
	if err != nil {
		return JSON{}, fmt.Errorf("egress: %w", err)
	}
	if len(p.creds) > 0 {
		s := p.extra(string(out))
		if s != string(out) {
			// The extra masks wrote Marker inside strings; re-check validity.
			if !json.Valid([]byte(s)) {
				return JSON{}, fmt.Errorf("egress: masking a credential broke the document")
			}
			out = []byte(s)
		}
	}
	return JSON{out}, nil
}

// mask is the one strength of the policy, then what p adds.
func (p Policy) mask(s string) string {
	if s == "" {
		return s
	}
	s = p.extra(s)
	return redact.KeepControls(s)
}

// extra applies what p adds to the policy: its credentials' forms.
func (p Policy) extra(s string) string {
	for _, c := range p.creds {
		s = c.Answer(s)
	}
	return s
}
