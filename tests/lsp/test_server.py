"""`shapescript lsp` end to end: the server runs as a subprocess (``python -m
shapescript_lsp``) and a pytest-lsp client talks the protocol to it."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_helpers import open_doc, pos_of, published, until
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

pytestmark = pytest.mark.asyncio(loop_scope="function")

MODEL = """\
dim D = 32
dim C = 4

## Layer normalization over the channels.
fn norm(x: [b n D], w: [D]) -> [b n D]:
    h = layer_norm(x, over=D, weight=w)
    y = h * 2.0
    return y

## The class scores of each token.
fn head(x: [b n D], w: [D C]) -> [b n C]:
    s = norm(x, ones[D]) @ w
    return s
"""


async def test_open_clean_file_has_no_diagnostics(client: LanguageClient, tmp_path: Path):
    uri = await open_doc(client, tmp_path / "model.ss", MODEL)
    assert not client.diagnostics[uri]


async def test_edit_reports_a_coded_diagnostic_with_its_explain_page(
        client: LanguageClient, tmp_path: Path):
    uri = await open_doc(client, tmp_path / "model.ss", MODEL)
    # Return the wrong shape: `y` is [b n D], the signature says [b n D] → make it [b D].
    start = pos_of(MODEL, "return y")
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [lsp.TextDocumentContentChangePartial(
            range=lsp.Range(start, lsp.Position(start.line, start.character + len("return y"))),
            text="return mean(y, over=n)")]))
    diags = await published(client, uri, 2)
    assert len(diags) == 1, diags
    d = diags[0]
    assert d.code == "E0402"
    assert d.source == "shapescript"
    assert d.severity == lsp.DiagnosticSeverity.Error
    assert d.range.start.line == start.line
    assert d.code_description is not None
    page = Path(d.code_description.href.removeprefix("file://"))
    assert page.name == "E0402.md" and page.read_text().strip()
    # The fix: undo the edit, and the diagnostic goes away.
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=3),
        [lsp.TextDocumentContentChangeWholeDocument(text=MODEL)]))
    assert not await published(client, uri, 3)


async def test_related_locations_and_quick_fix(client: LanguageClient, tmp_path: Path):
    text = ("import python torch\n\ndim D = 32\ndim C = 4\n\n"
            "fn saved_head() -> [D C]:\n    return torch.load(\"weights.pt\")[5]\n")
    uri = await open_doc(client, tmp_path / "untyped.ss", text)
    (d,) = client.diagnostics[uri]
    assert d.code == "E0413"
    assert "as [D C]" in d.message
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(uri), d.range, lsp.CodeActionContext(diagnostics=[d])))
    (fix,) = actions
    assert fix.kind == lsp.CodeActionKind.QuickFix
    (edit,) = fix.edit.changes[uri]
    assert edit.new_text == " as [D C]"
    assert edit.range.start == d.range.end
    # Applying the fix makes the file check.
    lines = text.split("\n")
    ln = edit.range.start.line
    lines[ln] = lines[ln][:edit.range.start.character] + edit.new_text + \
        lines[ln][edit.range.start.character:]
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [lsp.TextDocumentContentChangeWholeDocument(text="\n".join(lines))]))
    assert not await published(client, uri, 2)


async def test_secondary_labels_are_related_information(client: LanguageClient, tmp_path: Path):
    text = "dim D = 4\n\nfn f(x: [n D]) -> [n D]:\n    return add(x, x[0)\n"
    uri = await open_doc(client, tmp_path / "unclosed.ss", text)
    (d,) = client.diagnostics[uri]
    assert d.code == "E0103"
    assert d.range.start == pos_of(text, "[0)")
    (rel,) = d.related_information
    assert rel.location.uri == uri
    assert rel.location.range.start == pos_of(text, ")\n")
    assert "closes an outer bracket" in rel.message
    # Its help names an edit: add `]` before `)`.
    (fix,) = await client.text_document_code_action_async(lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(uri), d.range, lsp.CodeActionContext(diagnostics=[d])))
    (edit,) = fix.edit.changes[uri]
    assert edit.new_text == "]"


async def test_hover_shows_shapes_dtypes_domains_and_docs(client: LanguageClient, tmp_path: Path):
    uri = await open_doc(client, tmp_path / "model.ss", MODEL)
    h = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(uri), pos_of(MODEL, "y = h")))
    assert "y: [b n D] f32" in h.contents.value
    h = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(uri), pos_of(MODEL, "norm(x, ones")))
    assert "fn norm(x: [b n D], w: [D]) -> [b n D]" in h.contents.value
    assert "Layer normalization over the channels." in h.contents.value
    h = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(uri), pos_of(MODEL, "D C]")))
    assert "dim D = 32" in h.contents.value
    # A domain: the scores of cross-entropy-ready logits.
    text = "dim C = 4\nfn f(x: [b C] Logit over C) -> [b C] Logit over C:\n    z = x\n    return z\n"
    uri2 = await open_doc(client, tmp_path / "logits.ss", text)
    h = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(uri2), pos_of(text, "z = x")))
    assert "z: [b C] f32 Logit over C" in h.contents.value


async def test_definition_into_the_prelude_and_nn(client: LanguageClient, tmp_path: Path):
    uri = await open_doc(client, tmp_path / "model.ss", MODEL)
    (loc,) = await client.text_document_definition_async(lsp.DefinitionParams(
        lsp.TextDocumentIdentifier(uri), pos_of(MODEL, "layer_norm")))
    target = Path(loc.uri.removeprefix("file://"))
    assert target.name == "nn.ss" and target.is_file()
    line = target.read_text().split("\n")[loc.range.start.line]
    assert line.startswith("extern fn layer_norm(")
    # A local function: its declaration's name.
    (loc,) = await client.text_document_definition_async(lsp.DefinitionParams(
        lsp.TextDocumentIdentifier(uri), pos_of(MODEL, "norm(x, ones")))
    assert loc.uri == uri and loc.range.start == pos_of(MODEL, "norm(x: [b n D], w")
    # A local variable: where it's assigned.
    (loc,) = await client.text_document_definition_async(lsp.DefinitionParams(
        lsp.TextDocumentIdentifier(uri), pos_of(MODEL, "h * 2.0")))
    assert loc.range.start == pos_of(MODEL, "h = layer_norm")


async def test_references(client: LanguageClient, tmp_path: Path):
    uri = await open_doc(client, tmp_path / "model.ss", MODEL)
    locs = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=lsp.TextDocumentIdentifier(uri), position=pos_of(MODEL, "D = 32"),
        context=lsp.ReferenceContext(include_declaration=True)))
    lines = sorted(loc.range.start.line for loc in locs)
    # The declaration, the types of norm (3), `over=D`, head's `[b n D]`, `[D C]`, `ones[D]`.
    assert lines == [0, 4, 4, 4, 5, 10, 10, 11]
    locs = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=lsp.TextDocumentIdentifier(uri),
        position=pos_of(MODEL, "norm(x: [b n D], w"),
        context=lsp.ReferenceContext(include_declaration=False)))
    assert [loc.range.start for loc in locs] == [pos_of(MODEL, "norm(x, ones")]


async def test_completion(client: LanguageClient, tmp_path: Path):
    text = MODEL + "\nfn tail(x: [b n D]) -> [b D]:\n    return mean(x, over=\n"
    uri = await open_doc(client, tmp_path / "model.ss", text)
    end = pos_of(text, "over=\n", len("over="))
    result = await client.text_document_completion_async(lsp.CompletionParams(
        lsp.TextDocumentIdentifier(uri), end))
    labels = {i.label for i in result.items}
    assert {"n", "b", "D"} <= labels and "norm" not in labels
    # Names: locals, functions (own and the prelude's), dims.
    p = pos_of(MODEL, "    return s") 
    result = await client.text_document_completion_async(lsp.CompletionParams(
        lsp.TextDocumentIdentifier(uri), lsp.Position(p.line, 11)))
    labels = {i.label for i in result.items}
    assert {"s", "x", "w", "norm", "head", "layer_norm", "gelu", "D", "C"} <= labels
    # Pattern axes.
    text2 = MODEL + "\nfn t(x: [b n D]) -> [b D n]:\n    return rearrange(x, b n D -> \n"
    uri2 = await open_doc(client, tmp_path / "pat.ss", text2)
    result = await client.text_document_completion_async(lsp.CompletionParams(
        lsp.TextDocumentIdentifier(uri2), pos_of(text2, "-> \n", 3)))
    labels = {i.label for i in result.items}
    assert {"b", "n", "D"} <= labels and "norm" not in labels


async def test_model_field_completion(client: LanguageClient, tmp_path: Path):
    text = ("dim D = 8\n\nmodel Mlp:\n    ## The first layer's weight.\n    param w1: [D D] = normal(std=0.02)\n"
            "    param b1: [D] = zeros\n\nfn apply(m: Mlp, x: [b D]) -> [b D]:\n    return x @ m.w1\n")
    uri = await open_doc(client, tmp_path / "mlp.ss", text)
    assert not client.diagnostics[uri]
    result = await client.text_document_completion_async(lsp.CompletionParams(
        lsp.TextDocumentIdentifier(uri), pos_of(text, "m.w1", 2)))
    assert {i.label for i in result.items} == {"w1", "b1"}


async def test_signature_help(client: LanguageClient, tmp_path: Path):
    text = MODEL + "\nfn g(x: [b n D]) -> [b n C]:\n    return head(x, \n"
    uri = await open_doc(client, tmp_path / "model.ss", text)
    sh = await client.text_document_signature_help_async(lsp.SignatureHelpParams(
        lsp.TextDocumentIdentifier(uri), pos_of(text, "head(x, \n", len("head(x, "))))
    (sig,) = sh.signatures
    assert sig.label == "fn head(x: [b n D], w: [D C]) -> [b n C]"
    assert sh.active_parameter == 1
    a, b = sig.parameters[1].label
    assert sig.label[a:b] == "w: [D C]"


async def test_inlay_hints(client: LanguageClient, tmp_path: Path):
    uri = await open_doc(client, tmp_path / "model.ss", MODEL)
    hints = await client.text_document_inlay_hint_async(lsp.InlayHintParams(
        lsp.TextDocumentIdentifier(uri), lsp.Range(lsp.Position(0, 0), lsp.Position(20, 0))))
    got = {(h.position.line, h.label) for h in hints}
    assert got == {(5, ": [b n D] f32"), (6, ": [b n D] f32"), (11, ": [b n C] f32")}


async def test_document_symbols_and_semantic_tokens(client: LanguageClient, tmp_path: Path):
    uri = await open_doc(client, tmp_path / "model.ss", MODEL)
    symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
        lsp.TextDocumentIdentifier(uri)))
    assert [(s.name, s.kind) for s in symbols] == [
        ("D", lsp.SymbolKind.Constant), ("C", lsp.SymbolKind.Constant),
        ("norm", lsp.SymbolKind.Function), ("head", lsp.SymbolKind.Function)]
    assert [c.name for c in symbols[2].children] == ["x", "w"]
    tokens = await client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(
        lsp.TextDocumentIdentifier(uri)))
    legend = client.capabilities  # the client's; the server's legend is in its result
    assert legend is not None
    # Decode: (line, col, length, type index).
    data, decoded, line, col = tokens.data, [], 0, 0
    for i in range(0, len(data), 5):
        line += data[i]
        col = data[i + 1] if data[i] else col + data[i + 1]
        decoded.append((line, col, data[i + 2], data[i + 3]))
    from shapescript_lsp.tokens import TOKEN_TYPES

    def kind_at(needle: str) -> str:
        p = pos_of(MODEL, needle)
        for ln, c, n, t in decoded:
            if ln == p.line and c == p.character:
                return TOKEN_TYPES[t]
        raise AssertionError(needle)
    # Dims, generic axes and values are told apart.
    assert kind_at("D]) -> [b n D]:") == "type"
    assert kind_at("n D], w: [D]") == "typeParameter"
    assert kind_at("x, over=D") == "parameter"
    assert kind_at("h * 2.0") == "variable"
    assert kind_at("layer_norm") == "function"


async def test_syntax_error_mid_way_still_checks_the_rest(client: LanguageClient, tmp_path: Path):
    broken = MODEL.replace("    y = h * 2.0\n", "    y = h * (2.0\n")
    broken += "\nfn bad(x: [b D]) -> [b C]:\n    return x\n"
    uri = await open_doc(client, tmp_path / "broken.ss", broken)
    codes = sorted(d.code for d in client.diagnostics[uri])
    # The syntax error, and the type error in the function after it.
    assert "E0401" in codes and any(c.startswith("E01") for c in codes), codes
    # The server still answers, about the declarations that parsed.
    h = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(uri), pos_of(broken, "x, ones[D]")))
    assert "x: [b n D] f32" in h.contents.value
    # Garbage does not stop it either.
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [lsp.TextDocumentContentChangeWholeDocument(text="fn (((( ]] \x00 ->\n" * 50)]))
    assert await published(client, uri, 2)
    h = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(uri), lsp.Position(0, 5)))
    assert h is None or h.contents


async def test_imported_modules_definition_and_a_saved_change(client: LanguageClient,
                                                               tmp_path: Path):
    layers = "dim D = 8\n\n## A block.\nfn block(x: [b D]) -> [b D] = x * 2.0\n"
    main = "import layers\nfrom layers import block\n\nfn f(x: [b layers.D]) -> [b layers.D] = block(x)\n"
    luri = await open_doc(client, tmp_path / "layers.ss", layers)
    muri = await open_doc(client, tmp_path / "main.ss", main)
    assert not client.diagnostics[muri]
    (loc,) = await client.text_document_definition_async(lsp.DefinitionParams(
        lsp.TextDocumentIdentifier(muri), pos_of(main, "block(x)")))
    assert loc.uri == luri and loc.range.start == pos_of(layers, "block(x: [b D])")
    h = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(muri), pos_of(main, "block(x)")))
    assert "A block." in h.contents.value
    # layers.ss changes and is saved: main.ss is checked again against it.
    changed = layers.replace("-> [b D] = x * 2.0", "-> [b] = sum(x, over=D)")
    (tmp_path / "layers.ss").write_text(changed)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=luri, version=2),
        [lsp.TextDocumentContentChangeWholeDocument(text=changed)]))
    client.text_document_did_save(lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier(luri)))
    (d,) = await until(client, muri, lambda ds: bool(ds) and "[b layers.D]" in ds[0].message)
    assert d.code.startswith("E04"), d
    assert not await until(client, luri, [])


async def test_fast_typing_checks_the_latest_text(client: LanguageClient, tmp_path: Path):
    uri = await open_doc(client, tmp_path / "model.ss", MODEL)
    # Five keystrokes' worth of changes at once; the last one breaks the return type.
    texts = [MODEL.replace("y = h * 2.0", "y = h * 2.0" + " " * k) for k in range(1, 5)]
    texts.append(MODEL.replace("    return y\n", "    return mean(y, over=n)\n"))
    for version, text in enumerate(texts, start=2):
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [lsp.TextDocumentContentChangeWholeDocument(text=text)]))
    # A request sees the latest text, checked.
    h = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(uri), pos_of(texts[-1], "mean(y")))
    assert "[b D] f32" in h.contents.value
    await until(client, uri, ["E0402"])
