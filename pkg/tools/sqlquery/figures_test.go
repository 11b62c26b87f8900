package sqlquery

import (
	"testing"

	"github.com/superbiz/superbiz/internal/reliability"
)

// TestGuardFigures records, per engine, how many hostile statements (the
// refusal and not_allowed corpora) the guard was given and how many it
// admitted, next to the benign corpus it must keep admitting.
func TestGuardFigures(t *testing.T) {
	refused := loadCorpus(t, "refused.sql")
	notAllowed := loadCorpus(t, "not_allowed.sql")
	benign := loadCorpus(t, "admitted.sql")
	for _, d := range []Dialect{MySQL, MariaDB, SQLite} {
		hostile := append([]string(nil), refused...)
		if d != SQLite {
			hostile = append(hostile, notAllowed...)
		}
		admitted := 0
		for _, q := range hostile {
			if _, err := Check(q, d, "shop"); err == nil {
				admitted++
				t.Errorf("%s: admitted hostile %q", d, q)
			}
		}
		benignTried, benignAdmitted := 0, 0
		if d != SQLite { // the benign corpus is MySQL syntax (SHOW, @@variables)
			benignTried = len(benign)
			for _, q := range benign {
				if _, err := Check(q, d, "shop"); err == nil {
					benignAdmitted++
				}
			}
		}
		reliability.Record(t, reliability.SectionSQL, "guard, "+d.String(), map[string]any{
			"tried": len(hostile), "admitted": admitted, "refused": len(hostile) - admitted,
			"benign_tried": benignTried, "benign_admitted": benignAdmitted,
		})
	}
}
