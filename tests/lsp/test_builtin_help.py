"""Signature help, hover and completion for the built-in forms and the prelude's
functions, end to end: the docs come from the core's description of each built-in
(the one the documentation's built-ins page is made from) and the prelude's `##`
comments, never from a table of the server's own."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_helpers import open_doc, pos_of
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from shapescript import api

pytestmark = pytest.mark.asyncio(loop_scope="function")

HEAD = """\
dim D = 32
dim C = 4

fn f(x: [b n D], w: [C D]) -> [b C]:
    y = mean(x, over=n)
    p = softmax(linear(y, w), over=C)
    return p
"""


async def _help(client: LanguageClient, uri: str, text: str, needle: str) -> lsp.SignatureHelp:
    """Signature help with the cursor right after ``needle``."""
    return await client.text_document_signature_help_async(lsp.SignatureHelpParams(
        lsp.TextDocumentIdentifier(uri), pos_of(text, needle, len(needle))))


def _param(sig: lsp.SignatureInformation, k: int) -> str:
    a, b = sig.parameters[k].label
    return sig.label[a:b]


async def test_signature_help_of_mean_while_typing(client: LanguageClient, tmp_path: Path):
    text = HEAD + "\nfn g(x: [b n D]) -> [b D]:\n    return mean(\n"
    uri = await open_doc(client, tmp_path / "m.ss", text)
    sh = await _help(client, uri, text, "return mean(")
    (sig,) = sh.signatures
    mean = api.builtin_doc("mean")
    assert sig.label == mean.signature
    assert [_param(sig, k) for k in range(len(sig.parameters))] == \
        ["x: [... A] Num", "over: Axis[A] = every axis"]
    assert sh.active_parameter == 0
    assert mean.doc in sig.documentation.value
    # The second argument, then the keyword being written.
    for typed, active in (("x, ", 1), ("x, over=", 1), ("over=", 1)):
        edited = text.replace("return mean(\n", f"return mean({typed}\n")
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
            [lsp.TextDocumentContentChangeWholeDocument(text=edited)]))
        sh = await _help(client, uri, edited, f"return mean({typed}")
        assert sh.active_parameter == active, typed


async def test_signature_help_of_patterns_and_the_prelude(client: LanguageClient, tmp_path: Path):
    text = (HEAD + "\nfn g(x: [b n D], w: [C D]) -> [b n C]:\n"
            "    t = rearrange(x, b n (h d) -> b h n d, h=\n"
            "    return linear(x, w, \n")
    uri = await open_doc(client, tmp_path / "m.ss", text)
    # A pattern's sizes: the variadic parameter after the pattern.
    sh = await _help(client, uri, text, "h=")
    (sig,) = sh.signatures
    assert sig.label == api.builtin_doc("rearrange").signature
    assert _param(sig, sh.active_parameter) == "sizes…: int"
    sh = await _help(client, uri, text, "rearrange(x, b n")
    assert _param(sh.signatures[0], sh.active_parameter) == "pattern: axes -> axes"
    # A prelude function: its `extern fn` declaration and `##` doc, types included.
    sh = await _help(client, uri, text, "linear(x, w, ")
    (sig,) = sh.signatures
    assert sig.label.startswith("extern fn linear(input: [... i] Float, weight: [o i] Float")
    assert _param(sig, sh.active_parameter) == "bias: [o] Float = none"
    assert "W^T + b" in sig.documentation.value


async def test_hover_on_built_ins_and_prelude_functions(client: LanguageClient, tmp_path: Path):
    uri = await open_doc(client, tmp_path / "m.ss", HEAD)
    assert not client.diagnostics[uri]
    h = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(uri), pos_of(HEAD, "mean(")))
    mean = api.builtin_doc("mean")
    assert mean.signature in h.contents.value and mean.doc in h.contents.value
    assert "This call: `[b D] f32`" in h.contents.value
    h = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(uri), pos_of(HEAD, "softmax")))
    assert "fn softmax(" in h.contents.value and "The softmax over the class axis" in h.contents.value
    h = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(uri), pos_of(HEAD, "linear")))
    assert "weight: [o i] Float" in h.contents.value and "from the prelude (nn.ss)" in h.contents.value


async def test_completion_items_of_built_ins_carry_their_docs(client: LanguageClient,
                                                              tmp_path: Path):
    uri = await open_doc(client, tmp_path / "m.ss", HEAD)
    result = await client.text_document_completion_async(lsp.CompletionParams(
        lsp.TextDocumentIdentifier(uri), pos_of(HEAD, "    return p", 11)))
    items = {i.label: i for i in result.items}
    for name in ("mean", "rearrange", "cross_entropy", "value_and_grad", "adamw"):
        b = api.builtin_doc(name)
        assert items[name].detail == b.signature
        assert b.doc in items[name].documentation.value
    assert "The softmax over the class axis" in items["softmax"].documentation.value


async def test_signature_help_inside_a_constructors_brackets_and_fill(client: LanguageClient,
                                                                      tmp_path: Path):
    text = (HEAD + "\nfn g(x: [b n D], w: [C D]) -> [n n] f32:\n"
            "    z = zeros[b n]\n"
            "    e = eye[n n]\n"
            "    m = full[n n](-1e9)\n"
            "    t = full[n] i32(0)\n"
            "    u = add(zeros[b n D], x)\n"
            "    v = add(x, ones[b n D])\n"
            "    return m\n")
    uri = await open_doc(client, tmp_path / "m.ss", text)
    zeros, full = api.builtin_doc("zeros"), api.builtin_doc("full")
    for needle in ("zeros[", "zeros[b n"):
        sh = await _help(client, uri, text, needle)
        (sig,) = sh.signatures
        assert sig.label == zeros.signature and zeros.doc in sig.documentation.value
        assert _param(sig, sh.active_parameter) == "shape"
    # eye[n n]: one parameter per axis, the one being written active.
    for needle, active in (("eye[", 0), ("eye[n", 0), ("eye[n ", 1), ("eye[n n", 1)):
        sh = await _help(client, uri, text, needle)
        assert sh.signatures[0].label == api.builtin_doc("eye").signature
        assert sh.active_parameter == active, needle
    # full: its shape inside the brackets, its value inside the parentheses, with a
    # dtype between them or not.
    for needle, param in (("full[n n", "shape"), ("full[n n](", "value: number"),
                          ("full[n n](-1e9", "value: number"), ("full[n] i32(", "value: number")):
        sh = await _help(client, uri, text, needle)
        (sig,) = sh.signatures
        assert sig.label == full.signature
        assert [_param(sig, k) for k in range(len(sig.parameters))] == ["shape", "value: number"]
        assert _param(sig, sh.active_parameter) == param, needle
    # Inside a call: a constructor written as an argument is the constructor; after it,
    # the call's next argument.
    sh = await _help(client, uri, text, "add(zeros[b n")
    assert sh.signatures[0].label == zeros.signature
    sh = await _help(client, uri, text, "add(zeros[b n D], ")
    (sig,) = sh.signatures
    assert sig.label == api.builtin_doc("add").signature
    assert _param(sig, sh.active_parameter) == "b: [...] Num"
    sh = await _help(client, uri, text, "add(x, ones[b")
    assert sh.signatures[0].label == api.builtin_doc("ones").signature
    # After a constructor closed, nothing of it: `e = eye[n n]` is no call.
    assert await _help(client, uri, text, "eye[n n]") is None
