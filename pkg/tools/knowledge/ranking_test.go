package knowledge

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestIdentParts(t *testing.T) {
	tests := []struct {
		word string
		want []string
	}{
		{"CrashLoopBackOff", []string{"crash", "loop", "back", "off"}},
		{"KubePodCrashLooping", []string{"kube", "pod", "crash", "looping"}},
		{"HTTPServerDown", []string{"http", "server", "down"}},
		{"KubeAPIErrorsHigh", []string{"kube", "api", "errors", "high"}},
		{"etcdHighFsyncDurations", []string{"etcd", "high", "fsync", "durations"}},
		{"OOMKilled", []string{"oom", "killed"}},
		{"redis", nil},
		{"HTTP", nil},
		{"Redis", nil},
		{"p99", nil},
		{"超时", nil},
	}
	for _, tt := range tests {
		if got := IdentParts(tt.word); !slices.Equal(got, tt.want) {
			t.Errorf("IdentParts(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
}

func TestBuildQueryIdentifiers(t *testing.T) {
	terms := queryTerms("KubePodCrashLooping in prod")
	if got, want := everyTerm(terms), `("kubepodcrashlooping" OR ("kube" AND "pod" AND "crash" AND "looping")) AND "prod"`; got != want {
		t.Errorf("every term: %s, want %s", got, want)
	}
	if got, want := anyTerm(terms), `"kubepodcrashlooping" OR "kube" OR "pod" OR "crash" OR "looping" OR "prod"`; got != want {
		t.Errorf("any term: %s, want %s", got, want)
	}
	// Stopwords are not parts: "IsDown" needs only "down".
	if got, want := BuildQuery("ServiceIsDown"), `"serviceisdown" OR "service" OR "down"`; got != want {
		t.Errorf("BuildQuery: %s, want %s", got, want)
	}
}

// alertCorpus is a small set of runbooks named the ways teams name them:
// by symptom in kebab-case, by alert in CamelCase, by rule in snake_case.
func alertCorpus(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "runbooks")
	writeFile(t, dir, "pod-crash-looping.md", "# Pod is crash looping\n\n## Meaning\n\nA container keeps exiting and the kubelet restarts it again and again, waiting longer each time.\n\n## Diagnosis\n\nRead the previous container's logs with kubectl logs --previous and the pod events.\n")
	writeFile(t, dir, "pod-not-ready.md", "# Pod not ready\n\n## Meaning\n\nThe pod runs but its readiness probe fails, so it receives no traffic.\n")
	writeFile(t, dir, "KubeDeploymentReplicasMismatch.md", "# Replicas mismatch\n\n## Meaning\n\nThe deployment has fewer available replicas than desired for a long time.\n")
	writeFile(t, dir, "KubeJobFailed.md", "# Batch task did not complete\n\n## Meaning\n\nOne run of the nightly task exited non-zero and was not retried.\n")
	writeFile(t, dir, "etcd_high_fsync_durations.md", "# Slow disk writes on the key-value store\n\n## Meaning\n\nWAL fsync latency is high; the cluster store is slow to commit.\n")
	writeFile(t, dir, "backoff-policy.md", "# Retry policy\n\n## Exponential backoff\n\nClients wait with exponential backoff before they retry a failed call, and switch it off only in tests.\n")
	writeFile(t, dir, "node-memory.md", "# Node memory pressure\n\n## Meaning\n\nThe node is low on memory and evicts pods; a pod that crashes with OOMKilled loops until the limit is raised.\n")
	return dir
}

func TestSearchIdentifiers(t *testing.T) {
	ix := NewIndex(openDB(t), []string{alertCorpus(t)})
	mustSync(t, ix)
	tests := []struct{ query, want string }{
		{"CrashLoopBackOff", "runbooks/pod-crash-looping.md"},
		{"KubePodCrashLooping", "runbooks/pod-crash-looping.md"},
		{"KubePodNotReady", "runbooks/pod-not-ready.md"},
		{"replicas mismatch", "runbooks/KubeDeploymentReplicasMismatch.md"},
		{"deployment replicas", "runbooks/KubeDeploymentReplicasMismatch.md"},
		{"etcdHighFsyncDurations", "runbooks/etcd_high_fsync_durations.md"},
		{"etcd fsync", "runbooks/etcd_high_fsync_durations.md"},
		{"job failed", "runbooks/KubeJobFailed.md"},
		{"KubeJobFailed", "runbooks/KubeJobFailed.md"},
	}
	expectFirst(t, ix, tests)
}

// expectFirst searches each query and checks that the wanted source comes first.
func expectFirst(t *testing.T, ix *Index, tests []struct{ query, want string }) {
	t.Helper()
	for _, tt := range tests {
		docs := search(t, ix, tt.query, 3)
		if len(docs) == 0 || docs[0].Source != tt.want {
			t.Errorf("%q: got %v, want %s first", tt.query, sources(docs), tt.want)
		}
	}
}

// sources lists the source of each document, for messages.
func sources(docs []Document) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.DocID
	}
	return out
}

func TestSearchDiversifies(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runbooks")
	var flood strings.Builder
	flood.WriteString("# Gateway timeout FAQ\n")
	for i := range 6 {
		fmt.Fprintf(&flood, "\n## Gateway timeout case %d\n\nThe gateway timeout happened again on node %d; gateway timeout retried.\n", i, i)
	}
	writeFile(t, dir, "faq.md", flood.String())
	writeFile(t, dir, "gateway.md", "# Gateway\n\n## Timeout\n\nA gateway timeout means the upstream did not answer in time.\n")
	writeFile(t, dir, "upstream.md", "# Upstream\n\n## Slow upstream\n\nA slow upstream makes the gateway time out.\n")
	ix := NewIndex(openDB(t), []string{dir})
	mustSync(t, ix)

	docs := search(t, ix, "gateway timeout", 4)
	perFile := map[string]int{}
	for _, d := range docs {
		perFile[d.Source]++
	}
	if len(docs) != 4 || perFile["runbooks/faq.md"] != MaxSectionsPerResult || perFile["runbooks/gateway.md"] != 1 || perFile["runbooks/upstream.md"] != 1 {
		t.Fatalf("top 4 %v: want 2 sections of faq.md and one of each other file", sources(docs))
	}
	for i := 1; i < len(docs); i++ {
		if docs[i].Score > docs[i-1].Score {
			t.Fatalf("not in score order: %+v", docs)
		}
	}
	// Only one file holds "retried": it may fill the result.
	if docs := search(t, ix, "gateway timeout retried", 5); len(docs) != 5 {
		t.Fatalf("one matching file: %v, want 5 of its sections", sources(docs))
	}
}

func TestDuplicateSections(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runbooks")
	section := "## Escalation\n\nPage the database on-call through the pager rotation.\n"
	writeFile(t, dir, "mysql.md", "# MySQL\n\n"+section+"\n## Pool\n\nConnection pool exhausted.\n\n"+section)
	writeFile(t, dir, "copy/mysql.md", "# MySQL\n\n"+section)
	ix := NewIndex(openDB(t), []string{dir})
	st := mustSync(t, ix)
	// Within a file, a section repeating heading path and text is stored once.
	if st.Sections != 3 {
		t.Fatalf("stored %d sections, want 3 (the repeated escalation section dropped)", st.Sections)
	}
	// Across files, a search shows one copy of the same text.
	docs := search(t, ix, "database on-call pager", 3)
	if len(docs) != 1 || docs[0].DocID != "runbooks/copy/mysql.md#escalation" && docs[0].DocID != "runbooks/mysql.md#escalation" {
		t.Fatalf("copies of one section: %v, want one", sources(docs))
	}
}

func TestDiversify(t *testing.T) {
	h := func(src, body string, rank float64) hit {
		return hit{docID: src + "#" + body, source: src, body: src + body, rank: rank}
	}
	tests := []struct {
		name string
		hits []hit
		topK int
		want []string
	}{
		{"cap per file", []hit{h("a", "1", -9), h("a", "2", -8), h("a", "3", -7), h("b", "1", -6), h("c", "1", -5)}, 3,
			[]string{"a#1", "a#2", "b#1"}},
		{"cap fills with waiting sections in rank order", []hit{h("a", "1", -9), h("a", "2", -8), h("a", "3", -7), h("b", "1", -6)}, 4,
			[]string{"a#1", "a#2", "a#3", "b#1"}},
		{"duplicate text dropped", []hit{h("a", "x", -9), {docID: "b#x", source: "b", body: "ax", rank: -8}, h("c", "y", -7)}, 3,
			[]string{"a#x", "c#y"}},
		{"more atoms covered first when filling", []hit{h("a", "1", -9), h("a", "2", -8), {docID: "a#3", source: "a", body: "a3", rank: -7, covered: 2}, h("b", "1", -6)}, 4,
			[]string{"a#3", "a#1", "a#2", "b#1"}},
		{"fewer than topK", []hit{h("a", "1", -9)}, 3, []string{"a#1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			kept, _ := diversify(tt.hits, tt.topK)
			for _, x := range kept {
				got = append(got, x.docID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// A section matching more of the query's words ranks above one matching a
// single rarer word many times: "KubePodCrashLooping" is about a pod crash
// looping, not about kube-proxy.
func TestSearchCoverage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runbooks")
	writeFile(t, dir, "pod-crash-looping.md", "# Pod is crash looping\n\n## Meaning\n\nA container keeps exiting and is restarted, with a pod event each time.\n")
	writeFile(t, dir, "kube-proxy.md", "# kube-proxy\n\n## Meaning\n\nkube-proxy rules are stale: restart kube-proxy on the node.\n")
	for i, topic := range []string{"disk", "memory", "network", "dns", "certificates", "scheduler"} {
		writeFile(t, dir, fmt.Sprintf("node-%d.md", i), fmt.Sprintf("# Node %s\n\n## Meaning\n\nThe node reports %s trouble; each pod on it may be affected.\n", topic, topic))
	}
	ix := NewIndex(openDB(t), []string{dir})
	mustSync(t, ix)
	docs := search(t, ix, "KubePodCrashLooping", 3)
	if len(docs) == 0 || docs[0].Source != "runbooks/pod-crash-looping.md" {
		t.Fatalf("got %v, want the pod-crash-looping runbook first", sources(docs))
	}
	if docs[0].Score < 3 {
		t.Fatalf("score %v: want at least the 3 words it covers", docs[0].Score)
	}
}

// A word in a section's heading outranks the same word in another section's
// body of the same length (the title column's weight), and an alert name
// written in CamelCase only in a heading is found by its words and by the
// name itself. The file names say nothing, so only the heading can rank.
func TestSearchTitleOutranksBody(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runbooks")
	writeFile(t, dir, "a.md", "# Network checks\n\nLook at the replication lag of the replica and the link between sites.\n")
	writeFile(t, dir, "b.md", "# Replication lag\n\nLook at the network checks of the replica and the link between sites.\n")
	writeFile(t, dir, "c.md", "# PostgresReplicaLagging\n\nCompare the primary's WAL position with the standby's replay position.\n")
	writeFile(t, dir, "d.md", "# Disk space\n\nFree space on the data volume before the standby stops replaying.\n")
	ix := NewIndex(openDB(t), []string{dir})
	mustSync(t, ix)
	expectFirst(t, ix, []struct{ query, want string }{
		{"replication lag", "runbooks/b.md"},
		{"network checks", "runbooks/a.md"},
		{"PostgresReplicaLagging", "runbooks/c.md"},
		{"postgres replica lagging", "runbooks/c.md"},
	})
}
