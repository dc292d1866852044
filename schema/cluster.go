package schema

import (
	"fmt"
	"regexp"
	"strings"
)

// Cluster is a ClickHouse cluster that the ClickHouse migrations are rendered for. Every table
// of a migration becomes two, created ON CLUSTER: <name>_local, which holds the shard's rows,
// and <name>, a Distributed table over them that takes the name the code reads and writes, so
// that queries need no change. Rows are sharded by project (cityHash64(project_id)), so a
// project's facts and entities live on one shard. Materialized views live on every shard and
// read and write its local tables, as on one server. See docs/operations.md, "Scaling out: ClickHouse cluster".
type Cluster struct {
	// Name is the cluster's name in the servers' remote_servers configuration.
	Name string
	// Database is the database of every table.
	Database string
	// Replicated makes the local tables Replicated*MergeTree, with their ZooKeeper path and
	// replica name from the servers' {shard} and {replica} macros: for clusters where a shard
	// has more than one replica.
	Replicated bool
}

// LocalSuffix names the local table under a Distributed one.
const LocalSuffix = "_local"

// shardingKeys are the sharding keys of the tables without a project_id column; a table with
// one is sharded by it.
var shardingKeys = map[string]string{
	// Rates are read whole by the query's initiator (engine/currency.go), never on a shard.
	"fx_rates":          "cityHash64(base, quote)",
	"schema_migrations": "version",
}

const projectShardingKey = "cityHash64(project_id)"

var (
	createTableRe = regexp.MustCompile(`(?s)^CREATE TABLE IF NOT EXISTS (\w+) \((.*)\)\s*ENGINE = (\w*MergeTree|Null)(?:\(([^)]*)\))?(.*)$`)
	createViewRe  = regexp.MustCompile(`(?s)^CREATE MATERIALIZED VIEW IF NOT EXISTS (\w+) TO (\w+) AS\s+(SELECT\s.*)$`)
	alterTableRe  = regexp.MustCompile(`(?s)^ALTER TABLE (\w+) (ADD COLUMN .*)$`)
	updateRe      = regexp.MustCompile(`(?s)^ALTER TABLE (\w+) (UPDATE .* WHERE .*)$`)
	dropRe        = regexp.MustCompile(`^DROP TABLE IF EXISTS (\w+)$`)
	fromRe        = regexp.MustCompile(`\bFROM (\w+)`)
	projectColRe  = regexp.MustCompile(`(?m)^\s*project_id\s`)
	clusterNameRe = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$`)
	databaseRe    = regexp.MustCompile(`^\w{1,64}$`)
)

// ValidClusterName reports whether name can name a cluster in mtk's DDL.
func ValidClusterName(name string) bool { return clusterNameRe.MatchString(name) }

// Render turns one statement of a migration, as written for one server, into the cluster's
// statements. Migrations hold five kinds of statement: CREATE TABLE IF NOT EXISTS with a
// *MergeTree or Null engine (a Null table's views run on the shard its rows go to), CREATE
// MATERIALIZED VIEW IF NOT EXISTS ... TO, ALTER TABLE ... ADD COLUMN, ALTER TABLE ... UPDATE ...
// WHERE (a mutation of stored rows) and DROP TABLE IF EXISTS (of a table or a view); any other is
// an error, so that a new kind gets its cluster form before it ships.
func (c Cluster) Render(stmt string) ([]string, error) {
	if !ValidClusterName(c.Name) || !databaseRe.MatchString(c.Database) {
		return nil, fmt.Errorf("schema: cluster %q (letters, digits, _, . and -), database %q (letters, digits and _)", c.Name, c.Database)
	}
	stmt = strings.TrimSpace(stmt)
	if m := createTableRe.FindStringSubmatch(stmt); m != nil {
		return c.createTable(m[1], m[2], m[3], m[4], m[5])
	}
	if m := createViewRe.FindStringSubmatch(stmt); m != nil {
		sel := fromRe.ReplaceAllStringFunc(m[3], func(from string) string {
			return "FROM " + c.local(strings.TrimPrefix(from, "FROM "))
		})
		return []string{"CREATE MATERIALIZED VIEW IF NOT EXISTS " + c.table(m[1]) + c.onCluster() +
			" TO " + c.local(m[2]) + " AS\n" + sel}, nil
	}
	if m := alterTableRe.FindStringSubmatch(stmt); m != nil {
		// The Distributed table holds no rows: it is made again over the altered local table.
		// (ClickHouse 18.16 refuses ALTER ... ON CLUSTER on a Distributed table of a cluster
		// whose shards replicate.) Reads and writes through it fail for that moment.
		return []string{
			"ALTER TABLE " + c.local(m[1]) + c.onCluster() + " " + m[2],
			"DROP TABLE IF EXISTS " + c.table(m[1]) + c.onCluster(),
			c.distributed(m[1]),
		}, nil
	}
	if m := updateRe.FindStringSubmatch(stmt); m != nil {
		// The rows are in the local tables: each shard updates its own (a shard whose replicas
		// replicate runs the mutation once, as ClickHouse runs a replicated ALTER).
		return []string{"ALTER TABLE " + c.local(m[1]) + c.onCluster() + " " + m[2]}, nil
	}
	if m := dropRe.FindStringSubmatch(stmt); m != nil {
		// A table is its Distributed table and its local tables; a view has no local one, and the
		// second statement finds nothing.
		return []string{
			"DROP TABLE IF EXISTS " + c.table(m[1]) + c.onCluster(),
			"DROP TABLE IF EXISTS " + c.local(m[1]) + c.onCluster(),
		}, nil
	}
	first, _, _ := strings.Cut(stmt, "\n")
	return nil, fmt.Errorf("schema: no cluster form for the statement %q: write CREATE TABLE IF NOT EXISTS, "+
		"CREATE MATERIALIZED VIEW IF NOT EXISTS ... TO, ALTER TABLE ... ADD COLUMN, ALTER TABLE ... UPDATE ... WHERE or DROP TABLE IF EXISTS (schema/cluster.go)", first)
}

// shardingKey is the sharding key of a table that Render made.
func shardingKey(name string) string {
	if key, ok := shardingKeys[name]; ok {
		return key
	}
	return projectShardingKey
}

func (c Cluster) createTable(name, columns, engine, args, rest string) ([]string, error) {
	if _, ok := shardingKeys[name]; !ok && !projectColRe.MatchString(columns) {
		return nil, fmt.Errorf("schema: table %s has no project_id column: give it a sharding key in schema/cluster.go", name)
	}
	if c.Replicated && engine != "Null" { // a Null table stores nothing to replicate
		params := []string{"'/clickhouse/tables/{shard}/" + c.Database + "/" + name + LocalSuffix + "'", "'{replica}'"}
		if args = strings.TrimSpace(args); args != "" {
			params = append(params, args)
		}
		engine, args = "Replicated"+engine, strings.Join(params, ", ")
	}
	if args != "" {
		engine += "(" + args + ")"
	}
	return []string{
		"CREATE TABLE IF NOT EXISTS " + c.local(name) + c.onCluster() + " (" + columns + ") ENGINE = " + engine + rest,
		c.distributed(name),
	}, nil
}

// distributed creates the Distributed table name over its local tables.
func (c Cluster) distributed(name string) string {
	return "CREATE TABLE IF NOT EXISTS " + c.table(name) + c.onCluster() + " AS " + c.local(name) +
		" ENGINE = Distributed('" + c.Name + "', '" + c.Database + "', '" + name + LocalSuffix + "', " + shardingKey(name) + ")"
}

func (c Cluster) onCluster() string { return " ON CLUSTER `" + c.Name + "`" }

func (c Cluster) table(name string) string { return "`" + c.Database + "`." + name }

func (c Cluster) local(name string) string { return c.table(name + LocalSuffix) }
