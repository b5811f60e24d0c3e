package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/schollz/progressbar/v3"

	"github.com/graphmem/graphmem/eval"
)

// runEval is `graphmem eval locomo`: evidence recall@k on LoCoMo through
// the search path agents use, next to BM25 over turns in the same run.
func runEval(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] != "locomo" {
		return fmt.Errorf("usage: graphmem eval locomo [--data DIR] [--k 5,10,20] [--json]")
	}
	fs := flag.NewFlagSet("eval locomo", flag.ContinueOnError)
	data := fs.String("data", "../shared/data/locomo", "folder of LoCoMo conversations (*.json)")
	ks := fs.String("k", "5,10,20", "cut-offs of recall@k")
	asJSON := fs.Bool("json", false, "print only the JSON object")
	quiet := fs.Bool("quiet", false, "no progress bar")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	var cut []int
	for _, s := range strings.Split(*ks, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || k < 1 {
			return fmt.Errorf("--k: %q is not a positive number", s)
		}
		cut = append(cut, k)
	}
	o := eval.Options{DataDir: *data, Ks: cut}
	var bar *progressbar.ProgressBar
	if !*quiet && !*asJSON {
		o.Progress = func(done, total int) {
			if bar == nil {
				bar = progressbar.Default(int64(total), "evaluating")
			}
			_ = bar.Set(done)
		}
	}
	rep, err := eval.LoCoMo(ctx, o)
	if bar != nil {
		_ = bar.Finish()
		fmt.Fprintln(os.Stderr)
	}
	if err != nil {
		return err
	}
	if !*asJSON {
		if err := rep.WriteTable(os.Stdout); err != nil {
			return err
		}
	}
	b, err := rep.JSON()
	if err != nil {
		return err
	}
	fmt.Println(string(b))
	return nil
}
