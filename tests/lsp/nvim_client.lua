-- Drives Neovim's own LSP client against `shapescript lsp`: opens $SS_FILE, waits for
-- the server's diagnostics and writes them to $SS_OUT, one per line:
-- line:col:code:message (0-based positions, as Neovim keeps them).
local file, out = vim.env.SS_FILE, vim.env.SS_OUT
vim.cmd("edit " .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
local id = vim.lsp.start_client({
  name = "shapescript",
  cmd = { vim.env.SS_PYTHON, "-m", "shapescript_lsp" },
  root_dir = vim.fn.fnamemodify(file, ":h"),
})
vim.lsp.buf_attach_client(buf, id)
vim.wait(60000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
local lines = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  local lsp_diag = (d.user_data or {}).lsp or {}
  local code = d.code or lsp_diag.code or ""
  table.insert(lines, string.format("%d:%d:%s:%s", d.lnum, d.col, code,
    (d.message:gsub("\n", " | "))))
end
if #lines == 0 then table.insert(lines, "no diagnostics") end
vim.fn.writefile(lines, out)
vim.lsp.stop_client(id)
vim.cmd("qa!")
