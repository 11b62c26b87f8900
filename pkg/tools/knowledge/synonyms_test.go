package knowledge

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Every synonym is one index token, or it could never be looked up from a
// query (whose Chinese is cut into bigrams) nor counted as covered.
func TestSynonymGroupsAreTokens(t *testing.T) {
	for _, g := range synonymGroups {
		if len(g) < 2 {
			t.Errorf("group %q has nothing to be a synonym of", g)
		}
		for _, w := range g {
			cjk := strings.IndexFunc(w, isCJK) >= 0
			switch {
			case cjk && (utf8.RuneCountInString(w) != 2 || strings.IndexFunc(w, func(r rune) bool { return !isCJK(r) }) >= 0):
				t.Errorf("%q in %q: a Chinese synonym must be one bigram (two Han characters)", w, g)
			case !cjk && (w != strings.ToLower(w) || strings.IndexFunc(w, func(r rune) bool { return !isWord(r) }) >= 0):
				t.Errorf("%q in %q: an English synonym must be one lower-case word", w, g)
			}
		}
	}
}

func TestQuerySynonyms(t *testing.T) {
	// A Chinese query reaches the English words of its concepts…
	if got := BuildQuery("容器重启"); !strings.Contains(got, `"restart"`) || !strings.Contains(got, `"container"`) {
		t.Errorf("BuildQuery(容器重启) = %s, want restart and container among its terms", got)
	}
	// …an English query keeps to English, so a runbook and its translation
	// are not both pulled in by one question…
	if got := BuildQuery("container restarting"); strings.IndexFunc(got, isCJK) >= 0 || !strings.Contains(got, `"crash"`) {
		t.Errorf("BuildQuery(container restarting) = %s, want English synonyms only, crash among them", got)
	}
	// …and a synonym is an alternative inside its term when every term is required.
	if got, want := everyTerm(queryTerms("clock drift")), `("clock" OR "ntp") AND "drift"`; got != want {
		t.Errorf("everyTerm = %s, want %s", got, want)
	}
}

// A paraphrase in other words, or in Chinese, finds the runbook written in
// the words its authors use.
func TestSearchSynonyms(t *testing.T) {
	ix := NewIndex(openDB(t), []string{alertCorpus(t)})
	mustSync(t, ix)
	expectFirst(t, ix, []struct{ query, want string }{
		{"容器反复重启", "runbooks/pod-crash-looping.md"},
		{"磁盘写入太慢", "runbooks/etcd_high_fsync_durations.md"},
		{"节点内存不足", "runbooks/node-memory.md"},
		{"storage writes are slow", "runbooks/etcd_high_fsync_durations.md"},
	})
}
