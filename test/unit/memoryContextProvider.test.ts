// Rule: the memory provider passes the shared ContextProvider suite (channel, inbox, documents, limits, paths).
import { MemoryContextProvider } from '../../src/core/worker/memoryContextProvider.js';
import { contextProviderSuite } from '../helpers/contextProviderSuite.js';

contextProviderSuite('memory provider', async (o) => new MemoryContextProvider(o));
