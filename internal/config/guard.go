package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/superbiz/superbiz/internal/filekind"
)

// MaxFileBytes bounds a configuration file: a real one is a few KiB, and a
// larger one is read no further than this (a device or a growing file never
// makes Load read without end).
const MaxFileBytes = 1 << 20

// MaxDepth bounds how deeply tables, arrays and dotted keys may nest in a
// configuration file (the root table is level 1; superbiz's own keys need 4).
// It is checked by a linear scan before the TOML decoder runs, whose memory
// grows far faster than the input with the nesting depth.
const MaxDepth = 32

// readFile reads the configuration file name, refusing anything that is not
// a regular file (a FIFO is opened non-blocking and never waited on) and a
// file over MaxFileBytes; decode refuses nesting deeper than MaxDepth. Each
// refusal is one line naming the file.
func readFile(name string) ([]byte, error) {
	return ReadRegular(name, Untrusted{What: "config file", Limit: MaxFileBytes, Kind: "a .toml file", Size: "a configuration is a few KiB"})
}

// Untrusted says how ReadRegular names and bounds one kind of file, so that
// every reader of a file it does not trust (the configuration, an eval
// pack's files, a results file) refuses in the same words.
type Untrusted struct {
	What  string // what the file is, heading each refusal: "config file"
	Limit int64  // the most bytes read
	Kind  string // what to name instead of a special file: "a .toml file"
	Size  string // why Limit is enough: "a configuration is a few KiB"
}

// ReadRegular reads name as the configuration file is read: only a regular
// file (a FIFO is opened non-blocking and never waited on, a device is
// refused before it is read) of at most u.Limit bytes. Each refusal is one
// line naming the file.
func ReadRegular(name string, u Untrusted) ([]byte, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %v", u.What, name, unwrapPath(err))
	}
	if err := u.regular(name, st); err != nil {
		return nil, err
	}
	if st.Size() > u.Limit {
		return nil, u.tooLarge(name, st.Size())
	}
	// O_NONBLOCK: should the name be swapped for a FIFO after the Stat, the
	// open still returns at once and the check below refuses it.
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %v", u.What, name, unwrapPath(err))
	}
	defer f.Close()
	fst, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %v", u.What, name, unwrapPath(err))
	}
	if err := u.regular(name, fst); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, u.Limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s %s: %v", u.What, name, unwrapPath(err))
	}
	if int64(len(data)) > u.Limit {
		return nil, u.tooLarge(name, int64(len(data)))
	}
	return data, nil
}

// regular refuses a file that is not a regular file, naming what it is.
func (u Untrusted) regular(name string, st fs.FileInfo) error {
	m := st.Mode()
	if m.IsRegular() {
		return nil
	}
	return fmt.Errorf("%s %s is %s, not a regular file: name %s", u.What, name, filekind.Describe(m), u.Kind)
}

// tooLarge is the refusal of a file over u.Limit.
func (u Untrusted) tooLarge(name string, size int64) error {
	return fmt.Errorf("%s %s is larger than the %d KiB limit (%d bytes): %s", u.What, name, u.Limit>>10, size, u.Size)
}

// CheckNesting refuses TOML text nested deeper than MaxDepth, by the scan
// the configuration's decoding starts with, before any decoder builds it.
func CheckNesting(data []byte) error {
	return checkNesting(data, MaxDepth)
}

// errTooDeep marks a configuration nested deeper than allowed.
var errTooDeep = errors.New("nesting too deep")

// nestFrame is one open inline table or array of the nesting scan.
type nestFrame struct {
	table bool // '{' (an inline table) rather than '[' (an array)
	level int  // the container's own level
	inKey bool // inline table: reading a key (before its '=')
	segs  int  // inline table: segments of the key being read
}

// checkNesting scans TOML text once, without building anything, and fails
// when a table, array or dotted key would sit deeper than max levels (the
// root table being level 1): "[a.b]" opens level 3, "[[a]]" level 3 (the
// array, then its table), "x.y = {z = [1]}" inside level L puts the array at
// L+3. Strings and comments are skipped the way TOML lexes them, so brackets
// inside them do not count. Malformed text is left to the decoder, which
// reports it; the scan only has to never count less than the decoder builds.
func checkNesting(data []byte, max int) error {
	var stack []nestFrame
	line := 1
	tableLevel := 1 // level of the table the top-level keys go into
	topKey := true  // top level: at the start of a key/value or header line
	topSegs := 1    // top level: segments of the key being read
	valueLevel := 0 // level of a container opened as the value being read
	check := func(level int) error {
		if level > max {
			return fmt.Errorf("%d: %w: tables and arrays nest more than %d levels deep", line, errTooDeep, max)
		}
		return nil
	}
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch c {
		case '\n':
			line++
			if len(stack) == 0 {
				topKey, topSegs = true, 1
			}
			continue
		case ' ', '\t', '\r':
			continue
		case '#':
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
			continue
		case '"', '\'':
			end, lines := skipString(data, i)
			i, line = end, line+lines
			continue
		}
		if len(stack) == 0 {
			switch {
			case topKey && c == '[':
				// A table header: count its dotted segments up to ']'.
				array := i+1 < len(data) && data[i+1] == '['
				if array {
					i++
				}
				segs := 1
				for i+1 < len(data) && data[i+1] != ']' && data[i+1] != '\n' {
					i++
					switch data[i] {
					case '.':
						segs++
					case '"', '\'':
						end, lines := skipString(data, i)
						i, line = end, line+lines
					}
				}
				tableLevel = 1 + segs
				if array {
					tableLevel++
				}
				if err := check(tableLevel); err != nil {
					return err
				}
				topKey = false
			case topKey && c == '.':
				topSegs++
			case topKey && c == '=':
				topKey = false
				valueLevel = tableLevel + topSegs
				if err := check(valueLevel); err != nil {
					return err
				}
			case !topKey && (c == '[' || c == '{'):
				stack = append(stack, nestFrame{table: c == '{', level: valueLevel, inKey: true, segs: 1})
				if err := check(valueLevel); err != nil {
					return err
				}
			}
			continue
		}
		top := &stack[len(stack)-1]
		if top.table && top.inKey {
			switch c {
			case '.':
				top.segs++
			case '=':
				top.inKey = false
				if err := check(top.level + top.segs); err != nil {
					return err
				}
			case '}':
				stack = stack[:len(stack)-1]
			}
			continue
		}
		switch c {
		case '[', '{':
			level := top.level + 1
			if top.table {
				level = top.level + top.segs
			}
			stack = append(stack, nestFrame{table: c == '{', level: level, inKey: true, segs: 1})
			if err := check(level); err != nil {
				return err
			}
		case ']', '}':
			stack = stack[:len(stack)-1]
		case ',':
			if top.table {
				top.inKey, top.segs = true, 1
			}
		}
	}
	return nil
}

// skipString returns the index of the last byte of the TOML string that
// starts at data[i] (basic "…", literal '…', or their multi-line triple-quoted
// forms) and the newlines inside it. A single-line string ends at a newline,
// as the lexer ends it with an error; an unterminated one runs to the end.
func skipString(data []byte, i int) (end, lines int) {
	q := data[i]
	if i+2 < len(data) && data[i+1] == q && data[i+2] == q {
		// Multi-line: up to two more quotes may close it ("""" ends with a quote).
		for j := i + 3; j < len(data); j++ {
			switch {
			case data[j] == '\n':
				lines++
			case q == '"' && data[j] == '\\':
				if j+1 < len(data) && data[j+1] == '\n' {
					lines++
				}
				j++
			case data[j] == q && j+2 < len(data) && data[j+1] == q && data[j+2] == q:
				j += 2
				for k := 0; k < 2 && j+1 < len(data) && data[j+1] == q; k++ {
					j++
				}
				return j, lines
			}
		}
		return len(data) - 1, lines
	}
	if i+1 < len(data) && data[i+1] == q {
		return i + 1, 0 // the empty string
	}
	for j := i + 1; j < len(data); j++ {
		switch {
		case data[j] == '\n':
			return j - 1, 0
		case q == '"' && data[j] == '\\':
			if j+1 < len(data) && data[j+1] == '\n' {
				return j, 0
			}
			j++
		case data[j] == q:
			return j, 0
		}
	}
	return len(data) - 1, 0
}
