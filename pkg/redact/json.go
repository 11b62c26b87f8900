package redact

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/superbiz/superbiz/internal/termsafe"
)

// maxNestedJSON bounds how many levels of JSON held in a JSON string (a
// model's JSON answer inside a recorded response, an observation inside a
// recorded request) JSON opens; deeper strings are redacted as text.
const maxNestedJSON = 4

// JSON returns the JSON document raw with its secrets masked, keeping its
// structure valid: every string (names and values) passes through
// KeepControls, a non-empty string value of a member whose name is secret
// (Keyed.Secret) becomes Marker,
// and a string that itself holds a JSON object or array is redacted the same
// way inside instead of as text, so the inner document stays parseable.
// It returns raw itself when nothing changed (the output is compact only when
// something did); an error means raw is not JSON.
func JSON(raw []byte) ([]byte, error) {
	return walkJSON(raw, KeepControls)
}

// CleanJSON is JSON for a document shown to the model or a terminal (a tool's
// projection): every string is stripped of them before it is masked, so control
// characters and escape sequences are stripped too.
func CleanJSON(raw []byte) ([]byte, error) {
	return walkJSON(raw, clean)
}

// walkJSON is the one JSON walker: text masks each string that is not a
// secret member's value.
func walkJSON(raw []byte, text func(string) string) ([]byte, error) {
	w := jsonWalker{text: text, keys: NewKeyed(false)}
	out, changed, err := w.redact(raw, 0)
	if err != nil {
		return nil, err
	}
	if !changed {
		return raw, nil
	}
	return out, nil
}

// jsonWalker holds what one walk needs: how to mask text and the key verdicts.
type jsonWalker struct {
	text func(string) string
	keys *Keyed
}

// redact rewrites one document; depth counts the enclosing JSON strings.
func (w jsonWalker) redact(raw []byte, depth int) ([]byte, bool, error) {
	opts := []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
	dec := jsontext.NewDecoder(bytes.NewReader(raw), opts...)
	var buf bytes.Buffer
	buf.Grow(len(raw) + 16)
	enc := jsontext.NewEncoder(&buf, opts...)
	// names[i] is the last member name read at stack level i+1.
	var names []string
	changed := false
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, false, fmt.Errorf("redact json: %w", err)
		}
		level := dec.StackDepth()
		for len(names) < level {
			names = append(names, "")
		}
		names = names[:level]
		kind, n := dec.StackIndex(level)
		isName := kind == '{' && n%2 == 1
		if tok.Kind() == '"' {
			s := tok.String()
			var r string
			switch {
			case isName:
				// judged without controls, which cannot hide a secret name
				names[level-1] = termsafe.Strip(s)
				r = w.text(s)
			case s != "" && w.underSecret(names, kind):
				r = Marker
			default:
				r = w.stringValue(s, depth)
			}
			if r != s {
				tok = jsontext.String(r)
				changed = true
			}
		}
		if err := enc.WriteToken(tok); err != nil {
			return nil, false, fmt.Errorf("redact json: %w", err)
		}
		if dec.StackDepth() == 0 {
			// One document: anything after it is not JSON.
			if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
				return nil, false, errors.New("redact json: data after the document")
			}
			break
		}
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), changed, nil
}

// underSecret reports whether a value at the top of names sits under a
// secret-named member: its own member ({"token":"x"}), or any enclosing
// one ({"token":{"value":"x"}}, {"password":["x"]}). kind is the innermost
// container's.
func (w jsonWalker) underSecret(names []string, kind jsontext.Kind) bool {
	last := len(names)
	if kind != '{' {
		last-- // an array's level has no member name of its own
	}
	for i := 0; i < len(names); i++ {
		if i >= last && kind != '{' {
			break
		}
		if names[i] != "" && w.keys.Secret(names[i]) {
			return true
		}
	}
	return false
}

// stringValue redacts one string value: as a nested document when it holds
// a JSON object or array, else as text.
func (w jsonWalker) stringValue(s string, depth int) string {
	if depth < maxNestedJSON {
		if t := bytes.TrimSpace([]byte(s)); len(t) > 1 && (t[0] == '{' || t[0] == '[') {
			if out, changed, err := w.redact(t, depth+1); err == nil {
				if !changed {
					return s
				}
				return string(out)
			}
		}
	}
	return w.text(s)
}
