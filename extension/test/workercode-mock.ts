/** Unit tests run without the bundled worker: the viewer lays steps out itself. */
const workerCode = '';
export default workerCode;
