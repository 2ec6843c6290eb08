// Build-time patches of sql.js 1.16 (string binding, in-memory file growth, the database file's node and copy-on-write
// hooks for snapshots), applied to the bundle only.
//
// sql.js copies every bound string into wasm memory with JavaScript loops: one pass to count its UTF-8
// bytes, one to encode them, and a second count for sqlite3_bind_text's length. The hot path binds a
// few kilobytes per call (artifacts, step output, contracts), so these loops showed up in every
// profile. The patch encodes with TextEncoder.encodeInto (native, one pass) and passes the byte count
// it returns. Results are the same bytes for every well-formed string; a lone surrogate becomes U+FFFD
// (sql.js would have written bytes that its own TextDecoder turns into U+FFFD when read back). Below 64K
// characters the copy gets 3 bytes per character; a longer string (an artifact of a few hundred KB) gets
// its exact size, counted natively by Buffer.byteLength where there is one (sql.js's counting loop took
// 3.5 ms per MB, twice per submission of a 1 MB artifact: in its content and in the step's output).
//
// The patterns match sql.js 1.16.0's minified dist/sql-wasm.js exactly. If sql.js changes, the patch
// reports itself as not applied, the build warns and keeps sql.js as it is, and a unit test fails.

/** sql.js's `allocate a NUL-terminated UTF-8 copy of a string` helper, and its patched form. */
const ALLOCATE = {
  from: 'fa=a=>{var b=l(a)+1,d=da(b);d&&L(a,E,d,b);return d}',
  to: 'fa=a=>{var b=a.length<65536?3*a.length+1:(batonByteLength?batonByteLength(a):l(a))+1,d=da(b);if(d){var r=batonUtf8.encodeInto(a,E.subarray(d,d+b-1));E[d+r.written]=0;batonUtf8Length=r.written}return d}',
};

/** Statement.bindString: binds the copy with its byte length, counted a second time. */
const BIND_TEXT = {
  from: 'var p=fa(f);this.rb.push(p);this.db.handleError(uc(this.Va,h,p,l(f),0))',
  to: 'var p=fa(f);this.rb.push(p);this.db.handleError(uc(this.Va,h,p,batonUtf8Length,0))',
};

/**
 * MEMFS file growth. sql.js keeps the database as a file in Emscripten's in-memory filesystem, and a write
 * past its end grows the file's array by only 1.125x once it is past 1 MB, copying the whole database each
 * time: a 20 MB database had been copied 39 times (172 MB) by the time it got there, and each copy stalled
 * the call that caused it by tens of milliseconds. Here the array sits on a resizable ArrayBuffer (address
 * space reserved up to BATON_FILE_MAX, memory taken only as it is written) and grows in place, at least
 * doubling: growing 32 to 64 MB takes 0.03 ms instead of a 110 ms copy. Where the runtime has no resizable
 * buffers (or past the reservation) it doubles into a new array, copying each byte about once on average.
 */
const MEMFS_GROWTH = {
  from: 'm>=g||(g=Math.max(g,m*(m<1048576?2:1.125)>>>0),m&&(g=\nMath.max(g,256)),m=a.Ua.subarray(0,a.Wa),a.Ua=new Uint8Array(g),a.Ua.set(m));',
  to: 'm>=g||batonGrow(a,g);',
};
/**
 * Database.batonFileNode(): the in-memory filesystem's node of the database file (its array and length). The
 * connection runs with an in-memory rollback journal and EXCLUSIVE locking, so outside a transaction that file holds
 * exactly the committed database, and a snapshot can be written from it directly (src/store/fileSnapshot.ts).
 * export() instead copies it page by page through the filesystem layer into a fresh array whose first touch costs a
 * page fault per 4 KB: 140-290 ms for 20 MB on this project's 2-core VMs, all of it on the event loop.
 */
const FILE_NODE = {
  from: 'g.prototype.Wb=function(){if(!this.db)throw Error("Database closed");',
  to: 'g.prototype.batonFileNode=function(){if(!this.db)throw Error("Database closed");return B(this.filename).node};g.prototype.Wb=function(){if(!this.db)throw Error("Database closed");',
};

/**
 * Hooks a snapshot copies pages through before they change (src/store/fileSnapshot.ts): MEMFS calls the file node's
 * `batonBeforeWrite(position, length)` before a write changes its bytes, and `batonBeforeResize(size)` before a
 * truncate or extend resizes its array. A checkpoint then writes the database as it was when it began, off the event
 * loop, while calls go on changing it. Nodes without the hooks (every other file) behave as before.
 *
 * The resize itself (VACUUM truncates the file) happens in place on MEMFS_GROWTH's resizable buffer, which gives the
 * memory above the new size back: MEMFS would copy the file into a new array of exactly that size, and the next write
 * would copy it again to grow it (about 200 ms for a 160 MB database).
 */
const WRITE_HOOK = {
  from: 'if(!c)return 0;a=a.node;a.mtime=a.ctime=Date.now();',
  to: 'if(!c)return 0;a=a.node;a.batonBeforeWrite&&a.batonBeforeWrite(e,c);a.mtime=a.ctime=Date.now();',
};
const RESIZE_HOOK = {
  from: 'b.size!==void 0&&(b=b.size,a.Wa!=b&&(d=a.Ua,a.Ua=new Uint8Array(b),a.Ua.set(d.subarray(0,Math.min(b,\na.Wa))),a.Wa=b))',
  to: 'b.size!==void 0&&(b=b.size,a.Wa!=b&&(a.batonBeforeResize&&a.batonBeforeResize(b),batonResize(a,b)))',
};

/**
 * What the patches call: the string encoder, MEMFS_GROWTH's in-place growth of a file node's array to `need` bytes,
 * and RESIZE_HOOK's resize to `size` bytes (bytes past a file's length are always zero: every shrink cuts the buffer).
 * A file's array may be a view of fixed length on a resizable buffer (a snapshot read straight into one, see
 * src/store/snapshotRead.ts): resized in place, it is replaced by a view that follows the buffer's length.
 */
const PRELUDE = `var batonUtf8=new TextEncoder(),batonUtf8Length=0,BATON_FILE_MAX=2147483648,
batonByteLength=typeof Buffer=="function"&&typeof Buffer.byteLength=="function"?function(s){return Buffer.byteLength(s,"utf8")}:null;
function batonGrow(node,need){var cur=node.Ua,buf=cur.buffer,size=Math.max(need,cur.length*2,256);
if(buf.resizable&&cur.byteOffset===0&&cur.length===buf.byteLength&&size<=buf.maxByteLength){buf.resize(size);batonTrack(node);return}
var next;try{next=new Uint8Array(new ArrayBuffer(size,{maxByteLength:Math.max(size,BATON_FILE_MAX)}))}catch(e){next=new Uint8Array(size)}
next.set(cur.subarray(0,node.Wa));node.Ua=next}
function batonResize(node,size){var cur=node.Ua,buf=cur&&cur.buffer;
if(buf&&buf.resizable&&cur.byteOffset===0&&cur.length===buf.byteLength&&size<=buf.maxByteLength){buf.resize(size);batonTrack(node);node.Wa=size;return}
var next=new Uint8Array(size);cur&&next.set(cur.subarray(0,Math.min(size,node.Wa)));node.Ua=next;node.Wa=size}
function batonTrack(node){node.Ua.length!==node.Ua.buffer.byteLength&&(node.Ua=new Uint8Array(node.Ua.buffer))}
`;

/**
 * The patched source of sql.js's `dist/sql-wasm.js`, or the source unchanged with `applied: false`
 * when it is not the version the patch was written for.
 * @param {string} source
 * @returns {{ code: string, applied: boolean }}
 */
export function patchSqlJs(source) {
  const once = (text, needle) => text.indexOf(needle) !== -1 && text.indexOf(needle) === text.lastIndexOf(needle);
  const patches = [ALLOCATE, BIND_TEXT, MEMFS_GROWTH, FILE_NODE, WRITE_HOOK, RESIZE_HOOK];
  if (!patches.every((p) => once(source, p.from))) return { code: source, applied: false };
  const code = PRELUDE + patches.reduce((text, p) => text.replace(p.from, p.to), source);
  return { code, applied: true };
}

/** An esbuild plugin that applies `patchSqlJs` to sql.js's node build. */
export function sqlJsPatchPlugin() {
  return {
    name: 'baton-sqljs-patch',
    setup(build) {
      build.onLoad({ filter: /[\\/]sql\.js[\\/]dist[\\/]sql-wasm\.js$/ }, async (args) => {
        const { readFile } = await import('node:fs/promises');
        const { code, applied } = patchSqlJs(await readFile(args.path, 'utf8'));
        const warnings = applied
          ? []
          : [{ text: `sql.js at ${args.path} is not the version scripts/sqljsPatch.mjs was written for; its string binding, file growth, file node and snapshot hooks are left unpatched (slower, still correct). Update the patch's patterns.` }];
        return { contents: code, loader: 'js', warnings };
      });
    },
  };
}

/**
 * Bundles `entry` the way scripts/build.mjs bundles the CLI (sql.js patched) into `dir`, with sql-wasm.wasm and the
 * migrations beside it as dist/ has them; returns the bundle's path. For tests and benchmarks of what ships. With
 * `patchSqlJs: false`, sql.js stays as the sources load it (a child that runs like tsx would, without its start-up).
 * @param {string} entry
 * @param {string} dir
 * @param {{ patchSqlJs?: boolean }} [options]
 * @returns {Promise<string>}
 */
export async function bundleLikeDist(entry, dir, { patchSqlJs = true } = {}) {
  const [{ build }, { copyFileSync, cpSync }, { createRequire }, { dirname, join }] = await Promise.all([
    import('esbuild'), import('node:fs'), import('node:module'), import('node:path'),
  ]);
  const root = join(dirname(new URL(import.meta.url).pathname), '..');
  const outfile = join(dir, 'bundle.js');
  await build({
    entryPoints: [entry], outfile, bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'error',
    absWorkingDir: root, plugins: patchSqlJs ? [sqlJsPatchPlugin()] : [], external: ['esbuild'], // a bundle never builds bundles
  });
  const sqlJs = createRequire(join(root, 'package.json')).resolve('sql.js');
  copyFileSync(join(dirname(sqlJs), 'sql-wasm.wasm'), join(dir, 'sql-wasm.wasm'));
  cpSync(join(root, 'src', 'store', 'migrations'), join(dir, 'migrations'), { recursive: true });
  return outfile;
}
