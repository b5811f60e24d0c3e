package recall

// propertyWords is the built-in lexicon of words that name a predicate in
// a question without being its name: "who is Hiro's manager" asks for
// reports_to, "where is cart-api hosted" for deployed_in. Keys are
// canonical predicate names; the lexicon applies whether or not the
// ontology defines the predicate. Phrases of several words count in
// proportion to the words the question holds; Chinese phrases are matched
// as substrings. Operators add words through the ontology file: every
// synonym of a predicate is linked the same way.
var propertyWords = map[string][]string{
	"reports_to":           {"manager", "boss", "supervisor", "line manager", "report to", "reports to", "上级", "经理", "老板", "汇报"},
	"manages":              {"direct reports", "subordinates", "下属", "管理"},
	"owned_by":             {"owner", "owns", "owning team", "responsible", "maintainer", "maintains", "in charge", "accountable", "负责", "所有者", "归属", "所属团队"},
	"led_by":               {"lead", "leads", "leader", "head", "heads", "runs", "running", "in charge", "drives", "driving", "driven by", "负责人", "领导", "带领"},
	"member_of":            {"member", "team", "belongs", "part of", "成员", "团队", "所属"},
	"deployed_in":          {"hosted", "host", "hosts", "region", "geography", "deployed", "deploy", "data center", "datacenter", "cloud", "部署", "托管", "区域", "机房"},
	"runs_on":              {"engine", "runtime", "platform", "runs on", "framework", "dbms", "powers", "powered by", "运行", "平台", "引擎"},
	"uses_database":        {"database", "db", "datastore", "data store", "store data", "stores data", "persist", "persistence", "数据库", "存储"},
	"works_at":             {"employer", "company", "works for", "job at", "公司", "工作单位"},
	"job_title":            {"title", "role", "position", "job", "职位", "职务", "头衔"},
	"lives_in":             {"live", "lives", "home", "reside", "住在", "居住"},
	"located_in":           {"located", "location", "where is", "based", "office", "city", "work from", "works from", "位于", "地点"},
	"port":                 {"port", "listen", "listens", "端口"},
	"version":              {"version", "release", "版本"},
	"status":               {"status", "state", "health", "healthy", "going", "progress", "状态"},
	"uses":                 {"depend", "depends", "dependency", "dependencies", "rely", "依赖"},
	"uses_package_manager": {"package manager", "install packages", "包管理"},
	"memory_limit":         {"ram", "内存"},
	"cpu_limit":            {"cores", "processor"},
	"budget":               {"money", "funding", "spend", "预算"},
	"storage_size":         {"how big", "how large", "size", "disk", "大小", "容量"},
	"on_call":              {"on call", "oncall", "pager", "paged", "值班"},
	"backup_schedule":      {"backup", "backups", "备份"},
	"married_to":           {"spouse", "wife", "husband", "partner", "配偶", "妻子", "丈夫"},
	"decided":              {"decision", "decide", "decided", "决定"},
}
