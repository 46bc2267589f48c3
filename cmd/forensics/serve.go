package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"forensics/parsers"
	"forensics/serve"
	"forensics/store/backends"
)

func newServeCmd() *cobra.Command {
	var (
		dbPath  string
		addr    string
		open    bool
		timeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Explore the timeline in a browser: histogram, search, filters, the merged lines, the findings",
		Long: `serve starts the explorer, a read-only web application over the timeline
(--db FILE or the shared --store): pick an incident, see its events per node
over time with the findings' windows, drag to select a time range, search
every line, filter by node, component, file, kind and system keys, scroll
the merged timeline both ways, open a finding and follow its evidence to
its line. The page and its script are in the binary: no network access.

It listens on 127.0.0.1:8080 unless --addr says otherwise; on any address
that is not the loopback it prints a token once, and every request must
carry it (the link printed does). It never writes: GET and HEAD only, the
timeline opened read-only. docs/serve.md documents the JSON endpoints.`,
		Example: `  forensics serve --db incident.db --open
  forensics serve --store postgres://forensics@db.example/forensics --addr 0.0.0.0:8080`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runServe(cmd, dbPath, addr, cmd.Flags().Changed("addr"), open, timeout)
		},
	}
	addDBFlag(cmd, &dbPath, "timeline `FILE` written by analyze")
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "listen on `HOST:PORT`; an address other than the loopback requires the token printed")
	cmd.Flags().BoolVar(&open, "open", false, "open the page in the default browser")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Second, "end a query that takes longer than `DURATION`")
	return cmd
}

func runServe(cmd *cobra.Command, dbPath, addr string, explicit, open bool, timeout time.Duration) error {
	db, err := backends.OpenReader(dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return &exitError{exitUsage, fmt.Errorf("--addr %q: HOST:PORT, such as 127.0.0.1:8080", addr)}
	}
	opts := serveOptions(timeout)
	if ip := net.ParseIP(host); !explicit || (ip != nil && ip.IsLoopback()) || host == "localhost" {
		// the loopback: only this machine's users reach it
	} else {
		b := make([]byte, 16)
		rand.Read(b)
		opts.Token = hex.EncodeToString(b)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	url := "http://" + ln.Addr().String() + "/"
	if opts.Token != "" {
		url += "?token=" + opts.Token
	}
	fmt.Fprintf(cmd.OutOrStdout(), "forensics explorer of %s at %s\n", db.Name(), url)
	if opts.Token != "" {
		fmt.Fprintln(cmd.OutOrStdout(), "Every request needs the token in this link; it is not shown again.")
	}
	if open {
		openBrowser(url)
	}
	srv := &http.Server{
		Handler:           serve.New(db, opts),
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	ctx := cmd.Context()
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// serveOptions are the explorer's options but its token.
func serveOptions(timeout time.Duration) serve.Options {
	return serve.Options{Timeout: timeout, Kinds: parsers.Kinds()}
}

// openBrowser asks the desktop to open url; without one, the printed link stays.
func openBrowser(url string) {
	name := "xdg-open"
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		exec.Command("rundll32", "url.dll,FileProtocolHandler", url).Start()
		return
	}
	exec.Command(name, url).Start()
}
