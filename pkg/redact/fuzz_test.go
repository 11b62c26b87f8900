package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// plantedSecret is embedded in a DSN inside every fuzz input; it must never survive.
const plantedSecret = "Pl4nt3dS3cr3t"

func FuzzString(f *testing.F) {
	for _, s := range []string{
		"", "password=abc", "redis://:x@h:1", "Authorization: Bearer abc",
		"Cookie: a=b", "eyJabcd.eyJabcd.sig", "-----BEGIN PRIVATE KEY-----\nabc",
		`{"token":"a\"b"}`, "user:pw@tcp(h)/d", "connection pool 50/50",
	} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, prefix, suffix string) {
		in := prefix + " app:" + plantedSecret + "@tcp(db:3306)/orders " + suffix
		once := String(in)
		if strings.Contains(once, plantedSecret) {
			t.Fatalf("planted DSN secret survived:\n in %q\nout %q", in, once)
		}
		if twice := String(once); twice != once {
			t.Fatalf("not idempotent:\n once %q\ntwice %q", once, twice)
		}
		plain := prefix + suffix
		if twice, once := String(String(plain)), String(plain); twice != once {
			t.Fatalf("not idempotent:\n once %q\ntwice %q", once, twice)
		}
	})
}

func FuzzJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `"x"`, `{"password":"a"}`, `{"a":"{\"token\":\"b\"}"}`, `{"a":[1,{"b":"c"}]}`,
		`{"a":"[\"password=x\"]"}`, `{"a":1}{"b":2}`, "{\"a\":\"\xff\"}",
	} {
		f.Add(s, "prefix")
	}
	f.Fuzz(func(t *testing.T, doc, text string) {
		out, err := JSON([]byte(doc))
		if err == nil {
			if !json.Valid(out) {
				t.Fatalf("invalid JSON out of %q: %q", doc, out)
			}
			again, err := JSON(out)
			if err != nil || !bytes.Equal(again, out) {
				t.Fatalf("not idempotent: %q -> %q (%v)", out, again, err)
			}
		}
		// A planted secret inside any string of any document never survives.
		planted, err := json.Marshal(map[string]string{"k": text + " app:" + plantedSecret + "@tcp(db:3306)/orders " + text})
		if err != nil {
			t.Fatal(err)
		}
		out, err = JSON(planted)
		if err != nil {
			t.Fatalf("JSON(%s): %v", planted, err)
		}
		if bytes.Contains(out, []byte(plantedSecret)) {
			t.Fatalf("planted secret survived: %s", out)
		}
	})
}
