/**
 * The live view's one HTML page: a shell that loads the bundled script and style from the host
 * itself. It holds nothing secret; what it shows comes from the API after sign-in.
 *
 * @example
 * res.end(pageHtml(7777))
 */
import { paths } from './protocol.ts'

/**
 * The page's HTML.
 *
 * @example
 * pageHtml(7777).includes('/ui/app.js') // true
 */
export const pageHtml = (port: number): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="errands-port" content="${port}">
<title>Errands — live view</title>
<link rel="stylesheet" href="${paths.style}">
</head>
<body>
<div id="app"><p class="boot">Loading the live view…</p></div>
<script type="module" src="${paths.script}"></script>
</body>
</html>
`
