package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"forensics/parsers"
	"forensics/report"
	"forensics/store"
	"forensics/store/backends"
)

// Shell completion: cobra's `forensics completion bash|zsh|fish|powershell`
// writes the script; these functions give it the names only forensics knows.
// Those that read the timeline use the --db already typed on the line and
// stay silent when there is no timeline: a completion never prints an error.

func completeRules(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, r := range loadLibrary(cmd).rules.Rules {
		out = append(out, r.Name+"\t"+r.Doc.Title)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeRuleArg completes the one RULE argument of rules explain.
func completeRuleArg(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return completeRules(cmd, args, toComplete)
}

func completeKinds(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	for _, k := range parsers.Kinds() {
		out = append(out, string(k.Kind)+"\t"+k.Doc)
	}
	sort.Strings(out)
	return out, cobra.ShellCompDirectiveNoFileComp
}

// timelineFor opens the timeline named by the command's --db, or nil.
func timelineFor(cmd *cobra.Command) store.Reader {
	path := defaultDB
	if f := cmd.Flags().Lookup("db"); f != nil {
		path = f.Value.String()
		if s := os.Getenv(envStore); s != "" && !cmd.Flags().Changed("db") && !cmd.Flags().Changed("store") {
			path = s // completion runs no pre-run (resolveStores)
		}
	}
	db, err := backends.OpenReader(path)
	if err != nil {
		return nil
	}
	return db
}

// completeFindings completes a finding id with the findings of the latest
// analysis, each described by its rule and subject.
func completeFindings(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 && cmd.Flags().Lookup("around") == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	db := timelineFor(cmd)
	if db == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer db.Close()
	fs, err := db.Findings(cmd.Context(), 0)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, f := range fs {
		if strings.HasPrefix(f.ID, toComplete) {
			out = append(out, f.ID+"\t"+f.Rule+": "+report.SubjectLine(f.Finding, loadLibrary(cmd).rules.Rules))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeNodes completes --node with the nodes of the timeline.
func completeNodes(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	db := timelineFor(cmd)
	if db == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer db.Close()
	srcs, err := db.Sources(cmd.Context(), 0)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	seen := map[string]bool{}
	var out []string
	for _, s := range srcs {
		if s.Node != "" && !seen[s.Node] {
			seen[s.Node] = true
			out = append(out, s.Node)
		}
	}
	sort.Strings(out)
	return out, cobra.ShellCompDirectiveNoFileComp
}

// defaultDB is the timeline a command reads and writes when --db (and
// FORENSICS_STORE) does not name one.
const defaultDB = "forensics.db"

// addDBFlag adds --db, the timeline file, completed with SQLite files, and
// --store, its other name, for a shared store (postgres://…); both show in
// --help, and FORENSICS_STORE is their default.
func addDBFlag(cmd *cobra.Command, p *string, usage string) {
	// FORENSICS_STORE is read when the command runs (resolveStores): as the
	// flags' default it would show in --help, password and all.
	def := defaultDB
	cmd.Flags().StringVar(p, "db", def, usage+" (default: $"+envStore+" when set)")
	cmd.Flags().StringVar(p, "store", def, "the same as --db, for a shared `STORE`: postgres://USER@HOST/DATABASE (default $FORENSICS_STORE)")
	cmd.Flags().Lookup("store").DefValue = "" // --db's default is the one shown
	files := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"db", "sqlite", "sqlite3"}, cobra.ShellCompDirectiveFilterFileExt
	}
	cmd.RegisterFlagCompletionFunc("db", files)
	cmd.RegisterFlagCompletionFunc("store", files)
}

// withBashFallbacks makes `forensics completion bash` write a script that
// works in a shell without the bash-completion package (bash --norc, a
// minimal container image): cobra's script calls two of the package's
// functions, _get_comp_words_by_ref and _filedir, and without them every Tab
// printed "command not found" and fell back to file names. The script calls
// them through the functions of bashFallbacks instead, which use the
// package when it is loaded.
func withBashFallbacks(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	bash, _, err := root.Find([]string{"completion", "bash"})
	if err != nil || bash.Name() != "bash" {
		return
	}
	bash.Long = `Write the completion script for bash.

To load completions in the current shell:

	source <(forensics completion bash)

and for every new shell, once:

	mkdir -p ~/.local/share/bash-completion/completions
	forensics completion bash \
	    > ~/.local/share/bash-completion/completions/forensics

(the folder the bash-completion package reads), or add the source line above
to ~/.bashrc. The script works with or without the bash-completion package.
`
	bash.RunE = func(cmd *cobra.Command, args []string) error {
		noDesc, _ := cmd.Flags().GetBool("no-descriptions")
		var b strings.Builder
		if err := cmd.Root().GenBashCompletionV2(&b, !noDesc); err != nil {
			return err
		}
		script, err := patchBashScript(b.String())
		if err != nil {
			return err
		}
		_, err = io.WriteString(cmd.OutOrStdout(), script)
		return err
	}
}

// patchBashScript routes cobra's calls of the bash-completion package's
// functions through bashFallbacks.
func patchBashScript(s string) (string, error) {
	for _, r := range []struct{ old, new string }{
		{`_get_comp_words_by_ref "$@" cur prev words cword`, `__forensics_comp_words "$@"`},
		{`_filedir`, `__forensics_filedir`},
	} {
		if !strings.Contains(s, r.old) {
			// cobra's script changed: the test of the script in a bare
			// bash says what to do.
			return "", fmt.Errorf("completion bash: cobra's script no longer calls %s", r.old)
		}
		s = strings.ReplaceAll(s, r.old, r.new)
	}
	head, rest, _ := strings.Cut(s, "\n")
	return head + "\n" + bashFallbacks + rest, nil
}

const bashFallbacks = `
# Without the bash-completion package (bash --norc, a minimal image) its
# _get_comp_words_by_ref and _filedir are missing; these two do what bash
# alone can, and call the package's when it is loaded.
__forensics_comp_words()
{
    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref "$@" cur prev words cword
        return
    fi
    # The words typed up to the cursor, split at blanks only: bash's own
    # COMP_WORDS are also split at '=' and ':'.
    local line=${COMP_LINE:0:COMP_POINT}
    read -r -a words <<< "$line"
    if [[ -z $line || $line == *[[:space:]] ]]; then
        words+=("")
    fi
    cword=$((${#words[@]} - 1))
    cur=${words[cword]}
    prev=${words[cword > 0 ? cword - 1 : 0]}
}

__forensics_filedir()
{
    if declare -F _filedir >/dev/null 2>&1; then
        _filedir "$@"
        return
    fi
    local IFS=$'\n' f ext
    COMPREPLY=($(compgen -d -- "$cur"))
    if [[ $1 != -d ]]; then
        for f in $(compgen -f -- "$cur"); do
            [[ -d $f ]] && continue
            if [[ -z $1 ]]; then
                COMPREPLY+=("$f")
                continue
            fi
            for ext in ${1//|/$'\n'}; do
                if [[ $f == *.$ext ]]; then
                    COMPREPLY+=("$f")
                    break
                fi
            done
        done
    fi
    compopt -o filenames 2>/dev/null
}
`
