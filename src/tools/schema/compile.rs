//! From a JSON Schema document to the node arena: sub-schemas compiled once, `$ref`s resolved to
//! node ids after the walk, loops that would never end rejected.

use std::collections::HashMap;

use serde_json::Value;

use super::error::SchemaError;
use super::formats::Formats;
use super::node::Pattern;
use super::node::{Node, NodeId};
use super::MAX_DEPTH;
use crate::text::json_type_name;

/// A compiled schema's parts.
pub(super) struct Compiled {
    /// Every compiled (sub)schema.
    pub nodes: Vec<Node>,
    /// The schema the arguments object is checked against.
    pub root: NodeId,
}

/// Compiles the whole document.
pub(super) fn compile(root: &Value, formats: Formats) -> Result<Compiled, SchemaError> {
    let mut compiler = Compiler {
        root,
        formats,
        nodes: Vec::new(),
        pointers: Vec::new(),
        at: HashMap::new(),
        pending: Vec::new(),
        patterns: HashMap::new(),
    };
    let root_id = compiler.schema(root, String::new(), 0)?;
    // Resolving a ref may compile its target, which may hold more refs: a work list, so that long
    // chains of definitions cost no stack.
    while let Some((node, reference, pointer)) = compiler.pending.pop() {
        let target = compiler.resolve(&reference, &pointer)?;
        if let Some(Node::Rules(rules)) = compiler.nodes.get_mut(node) {
            rules.reference = Some(target);
        }
    }
    compiler.check_cycles()?;
    for node in &mut compiler.nodes {
        if let Node::Rules(rules) = node {
            rules.summarise();
        }
    }
    super::tags::tag_alternatives(&mut compiler.nodes);
    super::conditions::key_conditions(&mut compiler.nodes);
    Ok(Compiled { nodes: compiler.nodes, root: root_id })
}

/// The state of one compilation.
pub(super) struct Compiler<'s> {
    /// The whole document, for resolving refs.
    root: &'s Value,
    /// Whether `format` is asserted.
    pub(super) formats: Formats,
    /// The arena being built.
    nodes: Vec<Node>,
    /// Each node's JSON pointer, for errors found after the walk.
    pointers: Vec<String>,
    /// Nodes by JSON pointer, so a ref to an already compiled place reuses it.
    at: HashMap<String, NodeId>,
    /// Refs still to resolve: the node holding it, the reference, where the `$ref` is.
    pending: Vec<(NodeId, String, String)>,
    /// Each distinct `pattern` compiled so far (`None`: skipped, ECMAScript-only syntax).
    pub(super) patterns: HashMap<String, Option<Pattern>>,
}

impl Compiler<'_> {
    /// Compiles the schema at `pointer` (and everything under it) into the arena.
    pub(super) fn schema(
        &mut self,
        value: &Value,
        pointer: String,
        depth: usize,
    ) -> Result<NodeId, SchemaError> {
        if depth > MAX_DEPTH {
            return Err(SchemaError::TooDeep { path: fragment(&pointer), limit: MAX_DEPTH });
        }
        let (node, reference) = match value {
            Value::Bool(true) => (Node::Any, None),
            Value::Bool(false) => (Node::Nothing, None),
            Value::Object(map) => {
                let (rules, reference) = self.rules(map, &pointer, depth)?;
                (Node::Rules(rules), reference)
            }
            other => {
                return Err(SchemaError::NotASchema {
                    path: fragment(&pointer),
                    found: json_type_name(other),
                })
            }
        };
        let id = self.nodes.len();
        self.nodes.push(node);
        if let Some(reference) = reference {
            self.pending.push((id, reference, child(&pointer, "$ref")));
        }
        self.pointers.push(pointer.clone());
        self.at.insert(pointer, id);
        Ok(id)
    }

    /// Whether a compiled node is `false`.
    pub(super) fn is_nothing(&self, id: NodeId) -> bool {
        matches!(self.nodes.get(id), Some(Node::Nothing))
    }

    /// The node a local `$ref` points to, compiling it if the walk did not reach it (`$defs`).
    fn resolve(&mut self, reference: &str, at: &str) -> Result<NodeId, SchemaError> {
        let unresolvable =
            || SchemaError::UnresolvableRef { path: fragment(at), reference: reference.to_owned() };
        let fragment_text = reference.strip_prefix('#').ok_or_else(unresolvable)?;
        let decoded = super::pointer::percent_decode(fragment_text).ok_or_else(unresolvable)?;
        let pointer = if decoded.is_empty() || decoded.starts_with('/') {
            decoded
        } else {
            super::pointer::find_anchor(self.root, &decoded).ok_or_else(unresolvable)?
        };
        if let Some(&id) = self.at.get(&pointer) {
            return Ok(id);
        }
        let root = self.root;
        let target = root.pointer(&pointer).ok_or_else(unresolvable)?;
        self.schema(target, pointer, 0)
    }

    /// Rejects loops through `$ref`/`allOf`/`anyOf`/`oneOf` alone: checking any value against one
    /// would go round forever without moving into the value. Depth-first with an explicit stack, so
    /// big schemas cost no call stack.
    fn check_cycles(&self) -> Result<(), SchemaError> {
        const UNSEEN: u8 = 0;
        const ON_PATH: u8 = 1;
        const DONE: u8 = 2;
        let mut state = vec![UNSEEN; self.nodes.len()];
        for start in 0..self.nodes.len() {
            if state[start] != UNSEEN {
                continue;
            }
            state[start] = ON_PATH;
            let mut stack = vec![(start, 0usize)];
            while let Some((node, next)) = stack.last_mut() {
                let (node, edge) = (*node, *next);
                *next += 1;
                match in_place_edge(&self.nodes[node], edge) {
                    Some(to) if state[to] == ON_PATH => {
                        let path = self.pointers.get(to).map(|p| fragment(p)).unwrap_or_default();
                        return Err(SchemaError::RefCycle { path });
                    }
                    Some(to) if state[to] == UNSEEN => {
                        state[to] = ON_PATH;
                        stack.push((to, 0));
                    }
                    Some(_) => {}
                    None => {
                        state[node] = DONE;
                        stack.pop();
                    }
                }
            }
        }
        Ok(())
    }
}

/// The `index`th schema a node applies to the same value it is given.
fn in_place_edge(node: &Node, index: usize) -> Option<NodeId> {
    let Node::Rules(rules) = node else { return None };
    let condition =
        rules.condition.iter().flat_map(|&(test, then, other)| [Some(test), then, other]).flatten();
    let dependent = rules.dependent_schemas.iter().map(|(_, id)| *id);
    rules
        .reference
        .iter()
        .chain(&rules.all_of)
        .chain(&rules.any_of)
        .chain(&rules.one_of)
        .chain(&rules.not)
        .copied()
        .chain(condition)
        .chain(dependent)
        .nth(index)
}

/// The pointer one step below `pointer`, escaped as RFC 6901 asks.
pub(super) fn child(pointer: &str, token: &str) -> String {
    format!("{pointer}/{}", token.replace('~', "~0").replace('/', "~1"))
}

/// A JSON pointer as a URI fragment (`#/properties/city`), the form `$ref` uses.
pub(super) fn fragment(pointer: &str) -> String {
    format!("#{pointer}")
}
