-- Runs still being written. A run is an analysis once its findings are
-- saved: until then it is listed here, and readers take each incident's
-- latest run among the others, so a re-analysis that is killed leaves the
-- previous one's findings in view. Runs of earlier versions are analyses.
CREATE TABLE IF NOT EXISTS forensics.loading_runs (
	incident_id BIGINT NOT NULL,
	run_id      BIGINT NOT NULL,
	PRIMARY KEY (incident_id, run_id)
);
