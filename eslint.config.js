// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Everything the pure core must not touch: I/O, clocks, randomness. */
const coreRestrictions = {
  'no-restricted-imports': [
    'error',
    {
      patterns: [
        { group: ['node:*'], message: 'src/*/core is pure: no Node APIs.' },
        {
          regex:
            '^(fs|fs/.*|net|dgram|http|https|os|child_process|worker_threads|crypto|undici|dns|path)$',
          message: 'src/*/core is pure: no I/O modules.',
        },
        {
          group: [
            '../../authority/*.ts',
            '../../authority/zones/*',
            '../../xfr/*.ts',
            '../../dnssec/*.ts',
            '../../client/*',
            '../../cli/*',
            '../../resolver/http/*',
            '../../resolver/catalogue/*',
            '../../kit/metrics/*',
          ],
          message: 'a pure core folder must not import the service files of any part.',
        },
      ],
    },
  ],
  'no-restricted-globals': [
    'error',
    { name: 'process', message: 'src/*/core is pure: pass values in.' },
    { name: 'setTimeout', message: 'src/*/core has no timers.' },
    { name: 'setInterval', message: 'src/*/core has no timers.' },
    { name: 'console', message: 'src/*/core does not log; return diagnostics.' },
    { name: 'fetch', message: 'src/*/core does no I/O.' },
    { name: 'performance', message: 'src/*/core has no clock.' },
  ],
  'no-restricted-properties': [
    'error',
    {
      object: 'Date',
      property: 'now',
      message: 'src/*/core has no clock: take now as a parameter.',
    },
    {
      object: 'Math',
      property: 'random',
      message: 'src/*/core has no randomness: take it as a parameter.',
    },
  ],
  'no-restricted-syntax': [
    'error',
    {
      selector: "NewExpression[callee.name='Date'][arguments.length=0]",
      message: 'src/*/core has no clock: take now as a parameter.',
    },
    ...moduleState('src/*/core'),
  ],
};

/**
 * Module-level mutable state (a `let`, or a Map, Set, WeakMap or BoundedMemo
 * not typed Readonly): in a pure core folder (src/PART/core) it is state the purity rules above do not
 * see, in src/client a cache shared by every client of the process (issue
 * 19). Own it in an object passed in; where a module keeps it on purpose
 * (a scratch buffer or a memo of a pure function, used synchronously), say
 * why in an eslint-disable comment, which keeps it visible.
 */
function moduleState(where) {
  const message = `module-level mutable state in ${where}: own it in an object passed in, or say why it is safe in an eslint-disable comment (issue 19)`;
  const decl = [
    'Program > VariableDeclaration',
    'Program > ExportNamedDeclaration > VariableDeclaration',
  ];
  return [
    ...decl.map((d) => ({ selector: `${d}[kind='let']`, message })),
    ...decl.map((d) => ({
      selector: `${d} > VariableDeclarator:not([id.typeAnnotation.typeAnnotation.typeName.name=/^Readonly/]) > NewExpression.init[callee.name=/^(Map|Set|WeakMap|BoundedMemo)$/]`,
      message,
    })),
  ];
}

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'coverage/', 'data/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        performance: 'readonly',
        fetch: 'readonly',
        Response: 'readonly',
        Request: 'readonly',
        Headers: 'readonly',
        queueMicrotask: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-control-regex': 'off',
    },
  },
  { files: ['src/*/core/**/*.ts'], rules: coreRestrictions },
  {
    files: ['src/client/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...moduleState('src/client')] },
  },
);
