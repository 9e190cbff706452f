//! The parts of SARIF 2.1.0 that paces writes, as serde types (names as the standard spells
//! them, in camelCase; what is absent is left out).

use serde::Serialize;

/// Where the schema of SARIF 2.1.0 is published (the log's `$schema`).
pub(super) const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// A SARIF log: one run.
#[derive(Debug, Serialize)]
pub(super) struct Log {
    #[serde(rename = "$schema")]
    pub schema: &'static str,
    pub version: &'static str,
    pub runs: Vec<Run>,
}

/// One run of the tool.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Run {
    pub tool: Tool,
    pub invocations: Vec<Invocation>,
    /// How columns count: `unicodeCodePoints` (a character is a column).
    pub column_kind: &'static str,
    pub results: Vec<SarifResult>,
}

#[derive(Debug, Serialize)]
pub(super) struct Tool {
    pub driver: Driver,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Driver {
    pub name: &'static str,
    pub version: &'static str,
    pub semantic_version: &'static str,
    pub rules: Vec<Rule>,
}

/// A rule (`reportingDescriptor`): one kind of bug.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Rule {
    pub id: &'static str,
    pub name: &'static str,
    pub short_description: Message,
    pub full_description: Message,
    pub default_configuration: Configuration,
}

#[derive(Debug, Serialize)]
pub(super) struct Configuration {
    pub level: &'static str,
}

/// A message in plain text.
#[derive(Debug, Clone, Serialize)]
pub(super) struct Message {
    pub text: String,
}

impl Message {
    pub fn new(text: impl Into<String>) -> Message {
        Message { text: text.into() }
    }
}

/// How the run went, with what it has to say besides its results.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Invocation {
    pub execution_successful: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_execution_notifications: Vec<Notification>,
}

#[derive(Debug, Serialize)]
pub(super) struct Notification {
    pub level: &'static str,
    pub message: Message,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<Location>,
}

/// One bug found.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct SarifResult {
    pub rule_id: &'static str,
    pub rule_index: usize,
    pub level: &'static str,
    pub message: Message,
    pub locations: Vec<Location>,
    pub code_flows: Vec<CodeFlow>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fixes: Vec<Fix>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Location {
    pub physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PhysicalLocation {
    pub artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<Region>,
}

#[derive(Debug, Clone, Serialize)]
pub(super) struct ArtifactLocation {
    pub uri: String,
}

/// A text region: from a line and column to a line and column (the end column one past the
/// last character), all counted from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Region {
    pub start_line: usize,
    pub start_column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

/// A trace: one thread flow per thread that takes part.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct CodeFlow {
    pub message: Message,
    pub thread_flows: Vec<ThreadFlow>,
}

#[derive(Debug, Serialize)]
pub(super) struct ThreadFlow {
    pub id: String,
    pub message: Message,
    pub locations: Vec<ThreadFlowLocation>,
}

/// A step of a thread: where it is, its place in the whole trace (`executionOrder`, from 1;
/// absent for where a deadlocked thread waits), and how deep in procedure calls it is.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ThreadFlowLocation {
    pub location: Location,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution_order: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nesting_level: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub importance: Option<&'static str>,
}

/// A proposed fix: changes to the input's text.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Fix {
    pub description: Message,
    pub artifact_changes: Vec<ArtifactChange>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ArtifactChange {
    pub artifact_location: ArtifactLocation,
    pub replacements: Vec<Replacement>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Replacement {
    pub deleted_region: Region,
    pub inserted_content: Content,
}

#[derive(Debug, Clone, Serialize)]
pub(super) struct Content {
    pub text: String,
}
