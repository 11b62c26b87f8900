// Package strictjson decodes a model's structured answer exactly as the
// contracts require: one bounded, valid UTF-8 JSON object and nothing else,
// with no duplicate, unknown or wrong-case member. It never repairs, so a
// fenced, prefixed or suffixed answer is an error, not a guess.
package strictjson

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
)

// ErrNotOneObject means the text is not exactly one JSON object.
var ErrNotOneObject = errors.New("the answer must be exactly one JSON object, with nothing before or after it")

// ErrTooLarge means the text is longer than the caller's byte limit; it is
// checked before anything is parsed, so valid JSON over the limit is refused.
var ErrTooLarge = errors.New("the answer is larger than its limit")

// Decode strictly decodes text (at most maxBytes) into out, which should use
// pointer or presence-tracking fields so the caller can check required members.
func Decode(text string, maxBytes int, out any) error {
	if len(text) > maxBytes {
		return fmt.Errorf("%w: %d bytes exceed the limit of %d", ErrTooLarge, len(text), maxBytes)
	}
	if !utf8.ValidString(text) {
		return errors.New("not valid UTF-8")
	}
	trimmed := bytes.TrimSpace([]byte(text))
	if len(trimmed) == 0 {
		return errors.New("empty answer")
	}
	if trimmed[0] != '{' {
		return ErrNotOneObject
	}
	// json/v2 rejects duplicate names, wrong-case names and trailing data by
	// default; unknown members need the option.
	if err := jsonv2.Unmarshal(trimmed, out, jsonv2.RejectUnknownMembers(true)); err != nil {
		return err
	}
	return nil
}
