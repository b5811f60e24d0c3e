package eval

import (
	"fmt"
	"math/rand/v2"
)

// Reworded questions: the catalog's questions asked as people word them,
// in words that neither the ontology's names, synonyms and descriptions
// nor recall's lexicon of property words hold ("who do I wake up when
// cart-api breaks" for on_call, "what does cart-api write its rows to" for
// uses_database). They measure what recall finds by meaning rather than by
// the words it was taught. The wordings are split in two: the tuning seed
// asks the dev half, every other seed the test half, so that a change
// tried on the dev half is judged on wordings it never saw.

// rewordedDev and rewordedTest are the wordings of each (entity type,
// predicate), "%s" standing for the entity.
var rewordedDev = map[string][]string{
	"service/owned_by":         {"which squad is accountable for %s?", "who should I talk to about changing %s?", "whose service is %s?"},
	"service/deployed_in":      {"what geography is %s served from?", "where do the servers of %s sit?"},
	"service/runs_on":          {"what stack is %s built on?", "what does %s execute under?"},
	"service/uses_database":    {"what backs %s?", "where does %s keep its records?"},
	"service/memory_limit":     {"how many gigabytes may %s allocate?", "what is the heap ceiling of %s?"},
	"service/cpu_limit":        {"how much compute is %s allowed?", "how many vCPUs may %s take?"},
	"service/rate_limit":       {"how much traffic can %s take per second?", "what QPS cap does %s enforce?"},
	"service/port":             {"what socket does %s bind to?", "which number do I connect to for %s?"},
	"service/version":          {"what build of %s is live?", "which tag of %s is in production?"},
	"service/on_call":          {"who do I wake up when %s breaks?", "who answers the alerts of %s this week?"},
	"service/status":           {"is %s up?", "is anything wrong with %s?"},
	"service/tier":             {"how important is %s to the business?"},
	"service/language":         {"what is %s coded in?"},
	"service/sla":              {"how much uptime does %s guarantee?"},
	"service/repository":       {"where can I find the source of %s?"},
	"person/reports_to":        {"who does %s answer to?", "who signs off on %s's vacation?"},
	"person/member_of":         {"which group does %s work in?", "who are %s's teammates?"},
	"person/job_title":         {"what does %s do for a living?"},
	"person/located_in":        {"which city does %s commute to?"},
	"person/timezone":          {"what hours does %s keep?"},
	"team/led_by":              {"who steers %s?", "who is the captain of %s?"},
	"team/slack_channel":       {"where does %s chat?"},
	"team/budget":              {"how many dollars does %s get a year?"},
	"project/led_by":           {"who is driving %s?"},
	"project/status":           {"where are we with %s?"},
	"project/deadline":         {"by when must %s ship?"},
	"database/runs_on":         {"which DBMS is %s?"},
	"database/deployed_in":     {"which geography holds %s?"},
	"database/storage_size":    {"how many gigabytes does %s occupy?"},
	"database/backup_schedule": {"how often is %s snapshotted?"},
}

var rewordedTest = map[string][]string{
	"service/owned_by":         {"which group looks after %s?", "who takes care of %s these days?", "which crew builds %s?"},
	"service/deployed_in":      {"which part of the world is %s served from?", "where are the machines of %s?"},
	"service/runs_on":          {"what tech does %s sit on top of?", "which interpreter or VM powers %s?"},
	"service/uses_database":    {"what does %s write its rows to?", "which cluster holds the records of %s?"},
	"service/memory_limit":     {"how much heap is %s allowed?", "what is the gigabyte allowance of %s?"},
	"service/cpu_limit":        {"what is the processing allowance of %s?", "how many vCPUs is %s given?"},
	"service/rate_limit":       {"at what request rate does %s start rejecting calls?", "how many calls a second can %s absorb?"},
	"service/port":             {"which TCP number does %s answer on?", "what do I dial to reach %s?"},
	"service/version":          {"what is the newest rollout of %s?", "which build of %s is shipping now?"},
	"service/on_call":          {"who is the first responder for %s?", "who is holding the rotation for %s?"},
	"service/status":           {"how is %s doing?", "is %s up and running fine?"},
	"service/tier":             {"what priority class is %s?"},
	"service/language":         {"is %s Go or Java or something else?"},
	"service/sla":              {"what is the uptime commitment of %s?"},
	"service/repository":       {"what is the git URL of %s?"},
	"person/reports_to":        {"whose group does %s sit under?", "who approves %s's time off?"},
	"person/member_of":         {"what squad is %s in?", "which crew does %s belong with?"},
	"person/job_title":         {"what kind of engineer is %s?"},
	"person/located_in":        {"which city does %s go in to?"},
	"person/timezone":          {"what is the UTC offset of %s?"},
	"team/led_by":              {"who is at the helm of %s?", "who does %s follow?"},
	"team/slack_channel":       {"how do I message %s?"},
	"team/budget":              {"what are the yearly funds of %s?"},
	"project/led_by":           {"who is the point person for %s?"},
	"project/status":           {"is %s on track?"},
	"project/deadline":         {"what is the target date for %s?"},
	"database/runs_on":         {"what software is %s?"},
	"database/deployed_in":     {"where on the map is %s?"},
	"database/storage_size":    {"how full is %s?"},
	"database/backup_schedule": {"when does %s get copied for safety?"},
}

// reworded returns each question asked in a wording of the seed's half
// (dev for TuneSeed, test otherwise), naming the subject as the question
// does.
func reworded(seed uint64, qs []catalogQuestion) []catalogQuestion {
	set := rewordedTest
	if seed == TuneSeed {
		set = rewordedDev
	}
	r := rand.New(rand.NewPCG(seed, 0x5eed_0f_4e_b0_2d))
	out := make([]catalogQuestion, len(qs))
	for i, q := range qs {
		ws := set[q.Type+"/"+q.Predicate]
		out[i] = catalogQuestion{Text: fmt.Sprintf(ws[r.IntN(len(ws))], q.Name), Subject: q.Subject,
			Predicate: q.Predicate, Type: q.Type, Name: q.Name, Alias: q.Alias, Lang: "en"}
	}
	return out
}
