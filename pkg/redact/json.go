package redact

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// maxNestedJSON bounds how many levels of JSON held in a JSON string (a
// model's JSON answer inside a recorded response, an observation inside a
// recorded request) JSON opens; deeper strings are redacted as text.
const maxNestedJSON = 4

// JSON returns the JSON document raw with its secrets masked, keeping its
// structure valid: every string (names and values) passes through String, a
// non-empty string value of a member whose name IsSecretKey becomes Marker,
// and a string that itself holds a JSON object or array is redacted the same
// way inside instead of as text, so the inner document stays parseable.
// It returns raw itself when nothing changed (the output is compact only when
// something did); an error means raw is not JSON.
func JSON(raw []byte) ([]byte, error) {
	out, changed, err := redactJSON(raw, 0)
	if err != nil {
		return nil, err
	}
	if !changed {
		return raw, nil
	}
	return out, nil
}

// redactJSON rewrites one document; depth counts the enclosing JSON strings.
func redactJSON(raw []byte, depth int) ([]byte, bool, error) {
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
		if tok.Kind() == '"' {
			s := tok.String()
			kind, n := dec.StackIndex(level)
			var r string
			switch {
			case kind == '{' && n%2 == 1: // a member name
				names[level-1] = s
				r = Keep(s)
			case kind == '{' && s != "" && IsSecretKey(names[level-1]):
				r = Marker
			default:
				r = stringValue(s, depth)
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

// stringValue redacts one string value: as a nested document when it holds
// a JSON object or array, else as text.
func stringValue(s string, depth int) string {
	if depth < maxNestedJSON {
		if t := bytes.TrimSpace([]byte(s)); len(t) > 1 && (t[0] == '{' || t[0] == '[') {
			if out, changed, err := redactJSON(t, depth+1); err == nil {
				if !changed {
					return s
				}
				return string(out)
			}
		}
	}
	return Keep(s)
}
