"""Consts in the language server, end to end: hover (value, type, `##` comment), go to
definition and find references (in the file, through `from … import` and `layers.eps`,
and in the other open files), completion with values, document symbols and semantic
tokens; and the `pack`/`unpack` built-ins' hover and signature help."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_helpers import open_doc, pos_of, published
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from shapescript import api
from shapescript_lsp.tokens import TOKEN_TYPES, TOKEN_MODIFIERS

pytestmark = pytest.mark.asyncio(loop_scope="function")

LAYERS = """\
dim D = 8

## The norms' epsilon.
const eps = 1e-6
const base = 10000.0
"""

MAIN = """\
import layers
from layers import eps

dim E = 4
## Twice the epsilon, and the module's once more.
const twice = eps * 2 + layers.eps
const flag = true
const mode = "tanh"

fn norm(x: [b E], e: float = eps) -> [b E] = rms_norm(x, over=E, eps=e) * layers.base + twice

fn shadow(x: [b E], eps: float = eps) -> [b E] = x + eps
"""


def _at(p: lsp.Position) -> tuple[int, int]:
    return p.line, p.character


def _pt(text: str, needle: str, offset: int = 0) -> tuple[int, int]:
    """``pos_of`` as a hashable pair."""
    return _at(pos_of(text, needle, offset))


async def _both(client: LanguageClient, tmp_path: Path) -> tuple[str, str]:
    luri = await open_doc(client, tmp_path / "layers.ss", LAYERS)
    muri = await open_doc(client, tmp_path / "main.ss", MAIN)
    assert not client.diagnostics[luri] and not client.diagnostics[muri]
    return luri, muri


async def _hover(client: LanguageClient, uri: str, text: str, needle: str,
                 offset: int = 0) -> str:
    h = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(uri), pos_of(text, needle, offset)))
    assert h is not None, needle
    return h.contents.value


async def test_hover_on_a_const_shows_its_value_type_and_doc(client: LanguageClient,
                                                             tmp_path: Path):
    _, muri = await _both(client, tmp_path)
    # Its own declaration: the value computed, the comment, what was written.
    text = await _hover(client, muri, MAIN, "twice =")
    assert "const twice: float = 3e-06" in text
    assert "Twice the epsilon, and the module's once more." in text
    assert "Written `eps * 2 + layers.eps`." in text
    # An imported const, by its plain name and as `layers.eps`: the other file's doc.
    for needle, offset in (("eps * 2", 0), ("layers.eps", len("layers.")),
                           ("eps) -> [b E] = rms", 0)):
        text = await _hover(client, muri, MAIN, needle, offset)
        assert "const" in text and ": float = 1e-06" in text, (needle, text)
        assert "The norms' epsilon." in text and "from layers.ss" in text
        assert "Written" not in text  # a literal is shown once
    # A bool and a string, as ShapeScript writes them.
    assert "const flag: bool = true" in await _hover(client, muri, MAIN, "flag")
    assert 'const mode: str = "tanh"' in await _hover(client, muri, MAIN, "mode")
    # A parameter that takes a const's name is the parameter inside its function.
    text = await _hover(client, muri, MAIN, "x + eps", len("x + "))
    assert "eps: float" in text and "const" not in text


async def test_definition_of_a_const_across_files(client: LanguageClient, tmp_path: Path):
    luri, muri = await _both(client, tmp_path)
    decl = pos_of(LAYERS, "eps = 1e-6")
    # By its imported name, as `layers.eps`, in the import itself, as a default.
    for needle, offset in (("eps * 2", 0), ("layers.eps", len("layers.")),
                           ("import eps", len("import ")), ("float = eps) -> [b E] = rms",
                                                            len("float = "))):
        (loc,) = await client.text_document_definition_async(lsp.DefinitionParams(
            lsp.TextDocumentIdentifier(muri), pos_of(MAIN, needle, offset)))
        assert loc.uri == luri and loc.range.start == decl, needle
    # A const of this file.
    (loc,) = await client.text_document_definition_async(lsp.DefinitionParams(
        lsp.TextDocumentIdentifier(muri), pos_of(MAIN, "twice\n")))
    assert loc.uri == muri and loc.range.start == pos_of(MAIN, "twice =")
    # Another name of a `from … import` leads to what it imports (here a function).
    layers2 = LAYERS + "fn block(x: [b D]) -> [b D] = x * eps\n"
    (tmp_path / "layers.ss").write_text(layers2)
    text = "from layers import block, eps\nfn g(x: [b 8]) -> [b 8] = block(x) * eps\n"
    guri = await open_doc(client, tmp_path / "g.ss", text)
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=luri, version=2),
        [lsp.TextDocumentContentChangeWholeDocument(text=layers2)]))
    await published(client, luri, 2)
    (loc,) = await client.text_document_definition_async(lsp.DefinitionParams(
        lsp.TextDocumentIdentifier(guri), pos_of(text, "block, eps")))
    assert loc.uri == luri and loc.range.start == pos_of(layers2, "block(x: [b D])")
    # The parameter `eps` shadows the const inside `shadow`.
    (loc,) = await client.text_document_definition_async(lsp.DefinitionParams(
        lsp.TextDocumentIdentifier(muri), pos_of(MAIN, "x + eps", len("x + "))))
    assert loc.uri == muri and loc.range.start == pos_of(MAIN, "eps: float")


async def test_references_of_a_const_across_files(client: LanguageClient, tmp_path: Path):
    luri, muri = await _both(client, tmp_path)
    want = {
        (muri, _pt(MAIN, "import eps", len("import "))),      # from layers import eps
        (muri, _pt(MAIN, "eps * 2")),                         # in a const's value
        (muri, _pt(MAIN, "layers.eps", len("layers."))),      # qualified
        (muri, _pt(MAIN, "float = eps) -> [b E] = rms", len("float = "))),  # a default
        (muri, _pt(MAIN, "float = eps) -> [b E] = x", len("float = "))),    # shadow's
    }
    # From a use in main.ss, the declaration in layers.ss included.
    locs = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=lsp.TextDocumentIdentifier(muri), position=pos_of(MAIN, "eps * 2"),
        context=lsp.ReferenceContext(include_declaration=True)))
    got = {(loc.uri, _at(loc.range.start)) for loc in locs}
    assert got == want | {(luri, _pt(LAYERS, "eps = 1e-6"))}
    assert len(locs) == len(got)
    # `shadow`'s parameter and its use are not the const.
    assert (muri, _pt(MAIN, "x + eps", len("x + "))) not in got
    # From the declaration in layers.ss: the uses in the open file that imports it.
    locs = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=lsp.TextDocumentIdentifier(luri), position=pos_of(LAYERS, "eps = 1e-6"),
        context=lsp.ReferenceContext(include_declaration=False)))
    assert {(loc.uri, _at(loc.range.start)) for loc in locs} == want
    # A const of main.ss: its one use.
    locs = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=lsp.TextDocumentIdentifier(muri), position=pos_of(MAIN, "twice ="),
        context=lsp.ReferenceContext(include_declaration=False)))
    assert [(loc.uri, _at(loc.range.start)) for loc in locs] == [(muri, _pt(MAIN, "twice\n"))]


async def test_completion_offers_consts_with_their_values(client: LanguageClient,
                                                          tmp_path: Path):
    _, _ = await _both(client, tmp_path)
    text = MAIN + "\nfn g(x: [b E]) -> [b E] = x * \n"
    uri = await open_doc(client, tmp_path / "g.ss", text)
    result = await client.text_document_completion_async(lsp.CompletionParams(
        lsp.TextDocumentIdentifier(uri), pos_of(text, "x * \n", len("x * "))))
    items = {i.label: i for i in result.items}
    assert items["twice"].detail == "const twice: float = 3e-06"
    assert items["flag"].detail == "const flag: bool = true"
    assert items["eps"].detail == "const eps: float = 1e-06"  # imported by name
    assert items["eps"].kind == lsp.CompletionItemKind.Constant
    assert "The norms' epsilon." in items["eps"].documentation.value
    assert "const" in items and items["const"].kind == lsp.CompletionItemKind.Keyword
    # After `layers.`: the module's public names, its consts with their values.
    text2 = MAIN + "\nfn g(x: [b E]) -> [b E] = x * layers.\n"
    uri2 = await open_doc(client, tmp_path / "g2.ss", text2)
    result = await client.text_document_completion_async(lsp.CompletionParams(
        lsp.TextDocumentIdentifier(uri2), pos_of(text2, "layers.\n", len("layers."))))
    items = {i.label: i for i in result.items}
    assert set(items) == {"eps", "base", "D"}
    assert items["base"].detail == "const base: float = 10000.0"
    # Not in a type's brackets: a const is not a size.
    text3 = MAIN + "\nfn g(x: [b \n"
    uri3 = await open_doc(client, tmp_path / "g3.ss", text3)
    result = await client.text_document_completion_async(lsp.CompletionParams(
        lsp.TextDocumentIdentifier(uri3), pos_of(text3, "[b \n", len("[b "))))
    labels = {i.label for i in result.items}
    assert "E" in labels and not labels & {"twice", "eps", "flag"}


async def test_document_symbols_and_semantic_tokens_of_consts(client: LanguageClient,
                                                               tmp_path: Path):
    _, muri = await _both(client, tmp_path)
    symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
        lsp.TextDocumentIdentifier(muri)))
    assert [(s.name, s.kind, s.detail) for s in symbols][:4] == [
        ("E", lsp.SymbolKind.Constant, "= 4"),
        ("twice", lsp.SymbolKind.Constant, "= 3e-06"),
        ("flag", lsp.SymbolKind.Constant, "= true"),
        ("mode", lsp.SymbolKind.Constant, '= "tanh"')]
    tw = symbols[1]
    assert tw.selection_range.start == pos_of(MAIN, "twice =")
    tokens = await client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(
        lsp.TextDocumentIdentifier(muri)))
    data, decoded, line, col = tokens.data, {}, 0, 0
    for i in range(0, len(data), 5):
        line += data[i]
        col = data[i + 1] if data[i] else col + data[i + 1]
        mods = {m for k, m in enumerate(TOKEN_MODIFIERS) if data[i + 4] >> k & 1}
        decoded[(line, col)] = (TOKEN_TYPES[data[i + 3]], mods)

    def kind_at(needle: str, offset: int = 0) -> tuple[str, set[str]]:
        p = pos_of(MAIN, needle, offset)
        return decoded[(p.line, p.character)]
    # Consts are read-only variables (host values), not dims (`type`).
    assert kind_at("twice =") == ("variable", {"declaration", "readonly"})
    assert kind_at("eps * 2") == ("variable", {"readonly"})
    assert kind_at("import eps", len("import ")) == ("variable", {"readonly"})
    assert kind_at("layers.eps") == ("namespace", set())
    assert kind_at("layers.eps", len("layers.")) == ("variable", {"readonly"})
    assert kind_at("float = eps) -> [b E] = rms", len("float = ")) == ("variable", {"readonly"})
    assert kind_at("twice\n") == ("variable", {"readonly"})
    assert kind_at("layers.base", len("layers.")) == ("variable", {"readonly"})
    assert kind_at("E = 4") == ("type", {"declaration", "readonly"})
    # The parameter named like the const is a parameter.
    assert kind_at("x + eps", len("x + "))[0] == "parameter"


PACKED = """\
dim D = 16

fn with_cls(cls: [b D], patches: [b h w D]) -> ([b D], [b h w D]):
    tokens = pack((cls, patches), b * D)
    first, rest = unpack(tokens, b * D -> b D, b h w D)
    return first, rest
"""


async def test_pack_and_unpack_hover_and_signature_help(client: LanguageClient,
                                                        tmp_path: Path):
    uri = await open_doc(client, tmp_path / "packed.ss", PACKED)
    assert not client.diagnostics[uri]
    for name, this_call in (("pack", "[b h*w + 1 D] f32"),
                            ("unpack", "([b D] f32, [b h w D] f32)")):
        b = api.builtin_doc(name)
        text = await _hover(client, uri, PACKED, f"{name}((" if name == "pack" else "unpack(")
        assert b.signature in text and b.doc in text
        assert f"This call: `{this_call}`" in text
    # While typing: the parameters, the one being written highlighted.
    for typed, name, active, param in (
            ("pack(", "pack", 0, "xs: ([l… … r…], …)"),
            ("pack((cls, patches), ", "pack", 1, "pattern: names * names"),
            ("unpack(", "unpack", 0, "x: [l… S r…]"),
            ("unpack(tokens, ", "unpack", 1, "pattern: names * names -> part, …"),
            # Each part after `->` is the pattern still; a keyword size is `sizes…`.
            ("unpack(tokens, b * D -> b D, ", "unpack", 1, "pattern: names * names -> part, …"),
            ("unpack(tokens, b * D -> b D, b m D, m=", "unpack", 2, "sizes…")):
        text = PACKED + f"\nfn g(cls: [b D], patches: [b n D]) -> [b 1 + n D] = {typed}\n"
        doc_uri = await open_doc(client, tmp_path / f"typing_{len(typed)}.ss", text)
        sh = await client.text_document_signature_help_async(lsp.SignatureHelpParams(
            lsp.TextDocumentIdentifier(doc_uri), pos_of(text, f"{typed}\n", len(typed))))
        (sig,) = sh.signatures
        assert sig.label == api.builtin_doc(name).signature
        assert sh.active_parameter == active, typed
        a, b = sig.parameters[active].label
        assert sig.label[a:b] == param, typed
        assert api.builtin_doc(name).doc in sig.documentation.value


async def test_a_const_whose_value_failed_is_still_a_const(client: LanguageClient,
                                                           tmp_path: Path):
    text = "dim D = 4\n## Broken.\nconst bad = 1 / 0\nfn f(x: [b D]) -> [b D] = x * bad\n"
    uri = await open_doc(client, tmp_path / "bad.ss", text)
    assert [d.code for d in client.diagnostics[uri]] == ["E0307"]
    # Its hover shows what was written; its use still leads to it.
    for needle in ("bad =", "bad\n"):
        h = await _hover(client, uri, text, needle)
        assert "const bad = 1 / 0" in h and "Broken." in h
    locs = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=lsp.TextDocumentIdentifier(uri), position=pos_of(text, "bad\n"),
        context=lsp.ReferenceContext(include_declaration=True)))
    assert [_at(loc.range.start) for loc in locs] == [_pt(text, "bad ="), _pt(text, "bad\n")]
    symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
        lsp.TextDocumentIdentifier(uri)))
    assert ("bad", "= 1 / 0") in [(s.name, s.detail) for s in symbols]
