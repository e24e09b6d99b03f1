# `# noqa: CODE` hides that code's diagnostics on its line; a suppression that hides
# nothing is a warning, so it doesn't outlive the mistake it was for.

dim D = 4

fn ranks(x: [n D]) -> [n] = x  # noqa: E0402

fn fixed(x: [n]) -> [n] = x  # noqa: E0402    #~ E1901

fn both(x: [n D]) -> [n] = x  # noqa: E0402, E0201    #~ E1901

fn no_code(x: [n]) -> [n] = x  # noqa    #~ E1901

fn not_a_code(x: [n]) -> [n] = x  # noqa: E9999    #~ E1901

fn other(x: [n D]) -> [n] = x  # noqa: E0201    #~ E0402 E1901

fn quoted(s: str = "# noqa: E0402") -> str = s
