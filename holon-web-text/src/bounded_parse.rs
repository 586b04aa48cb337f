//! HTML parsed by html5ever into html2text's DOM, with the depth of the tree it
//! builds bounded. html5ever's tree builder walks its stack of open elements for many
//! tokens, so its time grows with depth times size: 100,000 nested `<div>`s (500 KB)
//! take over a minute of CPU. The pre-scan of [`super::nesting`] drops most deep tags
//! first, but it is not a tokenizer and HTML has many ways to hide a tag from one (a
//! stray quote, a tag the scan drops joining two halves of another). So the parse
//! itself counts: the sink records how deep each node lands, and once a node lands
//! deeper than the bound the parser is fed nothing more.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use html2text::{Handle, RcDom};
use html5ever::interface::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::TreeBuilderOpts;
use html5ever::{Attribute, ParseOpts, QualName};

/// Bytes fed to the parser between two looks at the depth: a chunk's own start tags
/// add at most a third of its bytes in levels (`<b>` is the shortest), and the
/// formatting elements it reopens (`<b>`, `<i>`, ... closed with an element around
/// them) at most as many as were open at once before.
pub(crate) const CHUNK_BYTES: usize = 1024;

/// The parse of a page.
pub struct Parsed {
    /// The document (all of it, or up to `cut_at`).
    pub dom: RcDom,
    /// Where the input stopped being read, in bytes, when the tree grew deeper than
    /// the bound there.
    pub cut_at: Option<usize>,
}

/// Parses `html` as html2text does (scripting disabled), and stops reading it at the
/// end of the chunk where a node first lands deeper than `max_depth`.
pub fn parse(html: &str, max_depth: usize) -> Parsed {
    let deepest = Rc::new(Cell::new(0));
    let sink = DepthSink {
        dom: RcDom::default(),
        depths: RefCell::new(HashMap::new()),
        deepest: Rc::clone(&deepest),
    };
    let opts = ParseOpts {
        tree_builder: TreeBuilderOpts {
            scripting_enabled: false,
            ..TreeBuilderOpts::default()
        },
        ..ParseOpts::default()
    };
    let mut parser = html5ever::parse_document(sink, opts);
    let mut read = 0;
    let mut cut_at = None;
    while read < html.len() {
        let mut end = (read + CHUNK_BYTES).min(html.len());
        while !html.is_char_boundary(end) {
            end += 1;
        }
        parser.process(StrTendril::from_slice(&html[read..end]));
        read = end;
        if deepest.get() > max_depth && read < html.len() {
            cut_at = Some(read);
            break;
        }
    }
    Parsed {
        dom: parser.finish(),
        cut_at,
    }
}

/// html2text's DOM, and the depth at which each node was placed (the document is
/// depth 0). Kept by node address: a node lives as long as the DOM holding it, and
/// one placed again gets its new depth.
struct DepthSink {
    dom: RcDom,
    depths: RefCell<HashMap<*const (), usize>>,
    deepest: Rc<Cell<usize>>,
}

impl DepthSink {
    fn depth(&self, node: &Handle) -> usize {
        self.depths
            .borrow()
            .get(&Rc::as_ptr(node).cast::<()>())
            .copied()
            .unwrap_or(0)
    }

    fn place(&self, child: &NodeOrText<Handle>, depth: usize) {
        if let NodeOrText::AppendNode(node) = child {
            self.set_depth(node, depth);
        }
    }

    fn set_depth(&self, node: &Handle, depth: usize) {
        self.depths
            .borrow_mut()
            .insert(Rc::as_ptr(node).cast::<()>(), depth);
        if depth > self.deepest.get() {
            self.deepest.set(depth);
        }
    }
}

impl TreeSink for DepthSink {
    type Handle = Handle;
    type Output = RcDom;
    type ElemName<'a> = <RcDom as TreeSink>::ElemName<'a>;

    fn finish(self) -> RcDom {
        self.dom
    }

    fn parse_error(&self, message: Cow<'static, str>) {
        self.dom.parse_error(message);
    }

    fn get_document(&self) -> Handle {
        self.dom.get_document()
    }

    fn elem_name<'a>(&'a self, target: &'a Handle) -> Self::ElemName<'a> {
        self.dom.elem_name(target)
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> Handle {
        self.dom.create_element(name, attrs, flags)
    }

    fn create_comment(&self, text: StrTendril) -> Handle {
        self.dom.create_comment(text)
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> Handle {
        self.dom.create_pi(target, data)
    }

    fn append(&self, parent: &Handle, child: NodeOrText<Handle>) {
        self.place(&child, self.depth(parent) + 1);
        self.dom.append(parent, child);
    }

    fn append_based_on_parent_node(
        &self,
        element: &Handle,
        prev_element: &Handle,
        child: NodeOrText<Handle>,
    ) {
        // The element's sibling when it has a parent, else the previous element's child.
        let depth = match element.get_parent() {
            Some(_) => self.depth(element),
            None => self.depth(prev_element) + 1,
        };
        self.place(&child, depth);
        self.dom
            .append_based_on_parent_node(element, prev_element, child);
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        self.dom
            .append_doctype_to_document(name, public_id, system_id);
    }

    fn mark_script_already_started(&self, node: &Handle) {
        self.dom.mark_script_already_started(node);
    }

    fn pop(&self, node: &Handle) {
        self.dom.pop(node);
    }

    fn get_template_contents(&self, target: &Handle) -> Handle {
        // A template's contents are a fragment of their own: what goes in them is as
        // deep as if it went in the template.
        let contents = self.dom.get_template_contents(target);
        self.set_depth(&contents, self.depth(target));
        contents
    }

    fn same_node(&self, x: &Handle, y: &Handle) -> bool {
        self.dom.same_node(x, y)
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.dom.set_quirks_mode(mode);
    }

    fn append_before_sibling(&self, sibling: &Handle, new_node: NodeOrText<Handle>) {
        self.place(&new_node, self.depth(sibling));
        self.dom.append_before_sibling(sibling, new_node);
    }

    fn add_attrs_if_missing(&self, target: &Handle, attrs: Vec<Attribute>) {
        self.dom.add_attrs_if_missing(target, attrs);
    }

    fn associate_with_form(
        &self,
        target: &Handle,
        form: &Handle,
        nodes: (&Handle, Option<&Handle>),
    ) {
        self.dom.associate_with_form(target, form, nodes);
    }

    fn remove_from_parent(&self, target: &Handle) {
        self.dom.remove_from_parent(target);
    }

    fn reparent_children(&self, node: &Handle, new_parent: &Handle) {
        let depth = self.depth(new_parent) + 1;
        for child in node.children.borrow().iter() {
            self.set_depth(child, depth);
        }
        self.dom.reparent_children(node, new_parent);
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &Handle) -> bool {
        self.dom.is_mathml_annotation_xml_integration_point(handle)
    }

    fn set_current_line(&self, line_number: u64) {
        self.dom.set_current_line(line_number);
    }
}

/// The depth of the deepest node under `node` (`node` is depth 0), without recursion.
/// A template's contents count as deep as the template, as the sink places them.
#[cfg(any(test, feature = "fuzz"))]
pub(crate) fn deepest(node: &Handle) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(node.clone(), 0)];
    while let Some((node, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        for child in node.children.borrow().iter() {
            stack.push((child.clone(), depth + 1));
        }
        if let html2text::Element {
            template_contents, ..
        } = &node.data
            && let Some(contents) = template_contents.borrow().as_ref()
        {
            stack.push((contents.clone(), depth));
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shallow_page_is_read_whole_and_its_tree_is_html2texts() {
        let page = "<!doctype html><title>T</title><table><tr><td>1<td>2</table>\
                    <template><p>in</p></template><b><p>x</b>y</p>";
        let parsed = parse(page, 64);
        assert_eq!(parsed.cut_at, None);
        let theirs = html2text::config::plain()
            .parse_html(page.as_bytes())
            .unwrap();
        let render = |dom: &RcDom| {
            let config = html2text::config::plain();
            let tree = config.dom_to_render_tree(dom).unwrap();
            config.render_to_string(tree, 80).unwrap()
        };
        assert_eq!(render(&parsed.dom), render(&theirs));
    }

    #[test]
    fn deep_nesting_stops_the_reading_near_the_bound() {
        for (shape, page) in [
            ("divs", "<div>".repeat(20_000)),
            ("formatting", "<b><i>".repeat(10_000)),
            ("templates", "<template><div>".repeat(10_000)),
            ("tables", "<table><tr><td>".repeat(7_000)),
        ] {
            let parsed = parse(&page, 64);
            let cut = parsed.cut_at.expect(shape);
            assert!(cut < 2 * CHUNK_BYTES, "{shape}: read {cut} bytes");
            let depth = deepest(&parsed.dom.document);
            assert!(depth < 64 + CHUNK_BYTES, "{shape}: {depth} deep");
        }
    }

    #[test]
    fn text_before_the_cut_is_kept() {
        let page = format!("<p>kept</p>{}lost", "<span>".repeat(5_000));
        let parsed = parse(&page, 64);
        assert!(parsed.cut_at.is_some());
        let config = html2text::config::plain();
        let tree = config.dom_to_render_tree(&parsed.dom).unwrap();
        let text = config.render_to_string(tree, 80).unwrap();
        assert!(text.contains("kept") && !text.contains("lost"), "{text}");
    }
}
