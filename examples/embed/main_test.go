package main

import (
	"context"
	"os"
	"strings"
	"testing"
)

// The whole run through the public packages and the OpenAI wire: the
// tool's result, the guards' release and the PublishedResult a program gets.
func Example_run() {
	if err := run(context.Background(), os.Stdout, "", "", "orders-db-1"); err != nil {
		panic(err)
	}
	// Output:
	// outcome: SUCCESS (stop reason COMPLETED)
	// check disk_usage: EVIDENCE_FOUND, disk usage of orders-db-1
	// published:
	// {
	//   "query": "orders-db writes fail since 09:00",
	//   "conclusion": {
	//     "summary": "orders-db-1's data disk is full, so writes to orders-db fail.",
	//     "root_cause": "The data disk of orders-db-1 is at 100% use.",
	//     "confidence": "MEDIUM"
	//   },
	//   "findings": [
	//     {
	//       "type": "FINDING",
	//       "claim": "orders-db-1's data disk is 100% used.",
	//       "scope": "disk usage of orders-db-1 at 09:30",
	//       "sources": [
	//         "disk_usage"
	//       ],
	//       "checks": [
	//         "disk_usage disk usage of orders-db-1"
	//       ]
	//     }
	//   ],
	//   "action_plan": [
	//     {
	//       "priority": "P0",
	//       "step": "Free space on orders-db-1 (old binary logs first) or grow its data disk.",
	//       "risk": "MEDIUM"
	//     }
	//   ],
	//   "recommendations": [
	//     "Alert when a database disk passes 85%."
	//   ],
	//   "limitations": {
	//     "scope": "the disk usage of orders-db-1 only.",
	//     "missing_info": [
	//       "the database's own error log"
	//     ]
	//   },
	//   "knowledge_refs": []
	// }
}

// A draft whose finding cites a call that found nothing (the tool knows no
// orders-db-3) is refused by the EvidenceGuard: the embedding program gets
// a fallback, never the draft.
func TestGuardRefusesAFindingWithoutEvidence(t *testing.T) {
	var out strings.Builder
	err := run(context.Background(), &out, "", "", "orders-db-3")
	if err == nil || !strings.Contains(err.Error(), "not published") {
		t.Fatalf("run = %v, want the run not published\n%s", err, out.String())
	}
	for _, want := range []string{"outcome: FALLBACK", "check disk_usage: NO_EVIDENCE, disk usage of orders-db-3"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
