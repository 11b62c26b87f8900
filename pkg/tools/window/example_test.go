package window_test

import (
	"fmt"
	"time"

	"github.com/superbiz/superbiz/pkg/tools/window"
)

// A window written without an offset is read in the source's zone and
// kept in UTC; one longer than the source's max_window is refused with a fix.
func ExampleParse() {
	shanghai := time.FixedZone("CST", 8*3600)
	b := window.Bounds{MinSince: 5 * time.Minute, MaxWindow: 6 * time.Hour, Loc: shanghai}
	w, err := window.Parse("2026-12-04 14:00:00", "2026-12-04 15:00:00", "", b)
	if err != nil {
		panic(err)
	}
	fmt.Println(w.Start, "to", w.End, "=", w.Len())
	_, err = window.Parse("", "", "12h", b)
	fmt.Println(err)
	// Output:
	// 2026-12-04 06:00:00 +0000 UTC to 2026-12-04 07:00:00 +0000 UTC = 1h0m0s
	// invalid input: since "12h" is out of range: use 5m to 6h
}
