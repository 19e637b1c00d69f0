// A local ESLint rule: the imports of a module in three groups, in this order: Node's built-in modules
// (`node:fs`), packages (`typebox`, `pg`), then the project's own modules (`./x.js`, `../y/z.js`); in
// each group, by the path imported. Order alone, so that a diff adding an import has one place for it
// and an import added twice shows. It fixes itself (`eslint --fix`) when the imports stand together
// at the top with no comment among them. A plugin such as eslint-plugin-import-x (`import-x/order`)
// does the same with more options; this rule avoids a dependency for it.

/** 0: a Node built-in, 1: a package, 2: a module of the project. */
const groupOf = (source) => (source.startsWith('node:') ? 0 : source.startsWith('.') ? 2 : 1);

/** The key an import sorts by: its group, then its path (`../` before `./`, as a path sorts). */
const keyOf = (node) => [groupOf(node.source.value), node.source.value];

const compare = (a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);

export default {
  meta: {
    type: 'suggestion',
    docs: { description: 'imports grouped (node:, packages, the project) and sorted by path in each group' },
    fixable: 'code',
    schema: [],
    messages: {
      order:
        '{{ source }} should come before {{ before }} (node: modules, then packages, then the project, each by path)',
    },
  },
  create(context) {
    return {
      Program(program) {
        const imports = program.body.filter((node) => node.type === 'ImportDeclaration');
        const misplaced = imports.findIndex((node, i) => i > 0 && compare(keyOf(imports[i - 1]), keyOf(node)) > 0);
        if (misplaced === -1) return;
        const node = imports[misplaced];
        const before = imports.find((other) => compare(keyOf(other), keyOf(node)) > 0);
        const source = context.sourceCode;
        const first = imports[0];
        const last = imports[imports.length - 1];
        // Fixable only when the imports are one run of statements with no comment between them.
        const run = program.body.slice(program.body.indexOf(first), program.body.indexOf(last) + 1);
        const fixable =
          run.every((statement) => statement.type === 'ImportDeclaration') &&
          source.getCommentsInside({ range: [first.range[0], last.range[1]], type: 'Program' }).length === 0 &&
          run.every((statement, i) => i === 0 || source.lines[statement.loc.start.line - 2] !== '');
        context.report({
          node,
          messageId: 'order',
          data: { source: node.source.value, before: before.source.value },
          fix: fixable
            ? (fixer) =>
                fixer.replaceTextRange(
                  [first.range[0], last.range[1]],
                  [...imports]
                    .sort((a, b) => compare(keyOf(a), keyOf(b)))
                    .map((statement) => source.getText(statement))
                    .join('\n'),
                )
            : null,
        });
      },
    };
  },
};
