package knowledge

import (
	"slices"
	"strings"
	"sync"
)

// synonymGroups are words that runbooks use for one concept, English and
// Chinese: a query word of a group also matches the group's other words, so
// "容器反复重启" reaches a runbook that says "restart" and "disk will be
// full" one that says "filesystem … filling up". Each member is one index
// token: an English word (compared after roughStem) or a two-character
// Chinese word (one bigram). The groups are the vocabulary of alert
// runbooks (Prometheus, Kubernetes, databases, queues), not of any one file.
var synonymGroups = [][]string{
	{"restart", "restarts", "restarting", "crash", "crashing", "crashloop", "重启", "崩溃"},
	{"repeatedly", "loop", "looping", "反复", "循环", "频繁"},
	{"container", "容器"},
	{"image", "镜像"},
	{"pull", "拉取", "拉不"},
	{"schedule", "scheduling", "pending", "调度"},
	{"disk", "filesystem", "磁盘"},
	{"full", "filling", "满了", "快满", "写满"},
	{"space", "空间"},
	{"insufficient", "exhausted", "不足", "耗尽"},
	{"node", "节点"},
	{"unavailable", "down", "unreachable", "不可", "宕机", "挂了"},
	{"dns", "域名"},
	{"resolve", "resolution", "lookup", "解析"},
	{"fail", "failed", "failure", "failing", "失败"},
	{"error", "errors", "错误", "报错"},
	{"service", "服务"},
	{"access", "访问"},
	{"connect", "connection", "connectivity", "连接", "不通"},
	{"allocate", "allocation", "分配"},
	{"address", "地址"},
	{"memory", "内存"},
	{"oom", "overflow", "溢出"},
	{"scale", "scaling", "autoscale", "autoscaler", "hpa", "扩容", "扩展"},
	{"namespace", "命名"},
	{"delete", "deletion", "terminating", "删除", "删不"},
	{"stuck", "hang", "卡住", "一直"},
	{"storage", "存储"},
	{"volume", "volumes", "pv", "pvc", "存储"},
	{"persistent", "持久"},
	{"mount", "挂载"},
	{"alert", "alerts", "notification", "notifications", "告警", "报警"},
	{"send", "deliver", "delivered", "delivery", "发送", "发不"},
	{"certificate", "cert", "tls", "证书"},
	{"expire", "expiration", "expiry", "expired", "过期", "到期"},
	{"write", "writes", "写入"},
	{"slow", "latency", "缓慢", "很慢", "太慢", "延迟"},
	{"clock", "ntp", "时钟"},
	{"sync", "synchronised", "synchronized", "synchronising", "synchronizing", "同步"},
	{"throttle", "throttled", "throttling", "限流"},
	{"start", "startup", "启动"},
	{"network", "网络"},
	{"packet", "packets", "丢包"},
	{"queue", "backlog", "队列", "积压"},
	{"replica", "replicas", "副本"},
	{"leader", "leads", "选主"},
	{"timeout", "超时"},
	{"load", "负载"},
	{"usage", "utilization"},
	{"cluster", "集群"},
	{"database", "db"},
	{"backup", "备份"},
	{"upgrade", "升级"},
	{"rollback", "回滚"},
	{"permission", "rbac", "forbidden", "权限"},
	{"config", "configuration", "配置"},
	{"reload", "重载"},
	{"metric", "metrics", "指标"},
	{"scrape", "采集", "抓取"},
	{"log", "logs", "日志"},
	{"conntrack", "tracking", "跟踪"},
	{"inode", "inodes", "files"},
	{"limit", "limits", "上限", "限制"},
}

// querySynonyms is synonymGroups indexed on first use; it is never written after.
var querySynonyms = sync.OnceValue(func() synonyms { return newSynonyms(synonymGroups) })

// synonyms maps a member's key (roughStem of an English word, the word
// itself for Chinese) to the other members of its group.
type synonyms map[string][]string

// newSynonyms indexes groups by each member's key.
func newSynonyms(groups [][]string) synonyms {
	out := synonyms{}
	for _, g := range groups {
		for _, w := range g {
			k := synonymKey(w)
			for _, other := range g {
				if synonymKey(other) != k && !slices.Contains(out[k], other) {
					out[k] = append(out[k], other)
				}
			}
		}
	}
	return out
}

// synonymKey is how a word is looked up: roughStem'd and lower case.
func synonymKey(w string) string { return roughStem(strings.ToLower(w)) }

// of returns the other words of the groups w belongs to.
func (s synonyms) of(w string) []string { return s[synonymKey(w)] }
