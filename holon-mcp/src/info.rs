//! Who the server says it is when a client connects: `serverInfo` and `instructions`.

use rmcp::model::{Icon, Implementation};

/// The server's identity (`initialize`'s `serverInfo`) and its instructions to the
/// client. [`server_info!`](crate::server_info) fills it from the calling crate's
/// package.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerInfo {
    name: String,
    version: String,
    title: Option<String>,
    description: Option<String>,
    website_url: Option<String>,
    icons: Vec<Icon>,
    instructions: Option<String>,
}

impl ServerInfo {
    /// A server called `name`, at `version`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            website_url: None,
            icons: Vec::new(),
            instructions: None,
        }
    }

    /// Its name for people (`serverInfo.title`).
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// What it is (`serverInfo.description`).
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The description, unless `description` is empty (a package without one).
    pub fn with_description_if_any(self, description: &str) -> Self {
        match description.trim() {
            "" => self,
            text => self.with_description(text),
        }
    }

    /// Its web site (`serverInfo.websiteUrl`).
    pub fn with_website_url(mut self, url: impl Into<String>) -> Self {
        self.website_url = Some(url.into());
        self
    }

    /// Adds an icon (`serverInfo.icons`).
    pub fn with_icon(mut self, icon: Icon) -> Self {
        self.icons.push(icon);
        self
    }

    /// What the client is told about using the server (`instructions`).
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The instructions, if any.
    pub fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// The `serverInfo` object.
    pub(crate) fn implementation(&self) -> Implementation {
        let mut implementation = Implementation::new(&self.name, &self.version);
        implementation.title = self.title.clone();
        implementation.description = self.description.clone();
        implementation.website_url = self.website_url.clone();
        implementation.icons = (!self.icons.is_empty()).then(|| self.icons.clone());
        implementation
    }
}
