package goxdcr

import "forensics"

// The attribute keys the goxdcr parser sets. They are stored with each
// event (the JSON attrs, --sql), so a key, once written, never changes;
// rules name them by these constants, never by their strings.
const (
	AttrCause         forensics.AttrKey = "cause"
	AttrError         forensics.AttrKey = "error"
	AttrPipeline      forensics.AttrKey = "pipeline"
	AttrReplication   forensics.AttrKey = "replication"
	AttrTargetBucket  forensics.AttrKey = "target_bucket"
	AttrTargetCluster forensics.AttrKey = "target_cluster"
)

// attrs says what each key holds; each kind's doc lists the keys it carries.
var attrs = forensics.AttrDocs{
	{Key: AttrCause, Type: forensics.AttrText, Doc: "what the errors say, as a word: connection_refused, auth, tls, bucket_missing, timeout, network, topology (a rebalance on either side), other"},
	{Key: AttrError, Type: forensics.AttrText, Doc: "the errors as logged (component : error), several joined with \"; \""},
	{Key: AttrPipeline, Type: forensics.AttrText, Doc: "which pipeline of the replication: main, or backfill (the pipeline that replicates collections added to the mapping)"},
	{Key: AttrReplication, Type: forensics.AttrText, Doc: "the replication's id: target cluster uuid/source bucket/target bucket (the bucket of the event is the source bucket)"},
	{Key: AttrTargetBucket, Type: forensics.AttrText, Doc: "the bucket the replication writes to, on the target cluster"},
	{Key: AttrTargetCluster, Type: forensics.AttrText, Doc: "the uuid of the target cluster, as the replication id names it"},
}
