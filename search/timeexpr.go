package search

import "regexp"

// timeExpr matches words that place an event in time, in English and
// Chinese: relative days and periods, weekdays, months, years, durations.
var timeExpr = regexp.MustCompile(`(?i)\b(?:yesterday|today|tonight|tomorrow|ago|last|next|since|recently|weekend|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|january|february|march|april|june|july|august|september|october|november|december|(?:19|20)\d\d|years?|months?|weeks?|days?)\b|昨天|今天|明天|前天|上周|下周|上个月|下个月|去年|今年|明年|以前|之前|周末|[0-9０-９一二三四五六七八九十两几]+\s*(?:年|个月|月|日|号|天|周|星期)`)

// MentionsTime reports whether text places something in time ("last
// week", "in 2022", "去年"). Episodes that do are flagged in the index, so
// "when" questions can favour them.
func MentionsTime(text string) bool { return timeExpr.MatchString(text) }
