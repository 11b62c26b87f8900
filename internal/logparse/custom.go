package logparse

import (
	"bytes"

	"github.com/superbiz/superbiz/internal/loglayout"
)

// customLayout is a source's own line layout (format custom): the compiled
// pattern and time layout of internal/loglayout, with its field names as bytes
// so a parsed line allocates nothing for them.
type customLayout struct {
	l     *loglayout.Layout
	names [][]byte
}

// newCustomLayout compiles a source's pattern and time layout into the
// registry entry format custom reads with; the error names the config key
// at fault.
func newCustomLayout(pattern, timeLayout string) (*Layout, error) {
	l, err := loglayout.Compile(pattern, timeLayout)
	if err != nil {
		return nil, err
	}
	c := &customLayout{l: l}
	for _, f := range l.Fields {
		c.names = append(c.names, []byte(f.Name))
	}
	return &Layout{Name: LayoutCustom, Parse: c.parse}, nil
}

// parse reads one line: a line the pattern does not match continues the
// previous entry (a stack frame); a match whose ts group does not parse is
// an entry of its own that cannot be placed in time.
func (c *customLayout) parse(line []byte, tc *TimeCtx, r *Record) LineKind {
	m := c.l.Match(line)
	if m == nil {
		return LineCont
	}
	group := func(i int) []byte {
		if i < 0 || m[2*i] < 0 {
			return nil
		}
		return line[m[2*i]:m[2*i+1]]
	}
	r.Msg = bytes.TrimRight(group(c.l.Msg), " \r")
	r.Service = group(c.l.Service)
	if lv := group(c.l.Level); len(lv) > 0 {
		if r.Level = normLevel(lv); r.Level == "" {
			r.Fields = append(r.Fields, KV{Key: []byte(loglayout.GroupLevel), Val: lv})
		}
	}
	for i, f := range c.l.Fields {
		if v := group(f.Group); v != nil {
			r.Fields = append(r.Fields, KV{Key: c.names[i], Val: v})
		}
	}
	ts, ok := c.l.Time(group(c.l.TS), tc.Loc, tc.Year, tc.EndNS)
	if !ok {
		return LineUntimed
	}
	r.TS = ts
	return LineTimed
}
